"""API routes; each app registers its viewsets on the one router."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from annotation import api as annotation_api
from concord.login_throttle import obtain_auth_token
from judges import api as judges_api

router = DefaultRouter()
annotation_api.register(router)
judges_api.register(router)

urlpatterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    *router.urls,
]
