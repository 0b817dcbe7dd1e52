"""API routes; each app registers its viewsets on the one router."""

from rest_framework.routers import DefaultRouter

router = DefaultRouter()

urlpatterns = router.urls
