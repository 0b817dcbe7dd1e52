from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerSplitView

from annotation.views.home import home
from concord import password_reset
from concord.health import healthz
from concord.schema_view import SchemaView
from concord.version import VersionView

# Swagger UI is served from our own static files (drf-spectacular-sidecar): no CDN, so no
# third party can change the script the docs page runs. It styles itself inline; its start-up
# script is served as a file (the "split" view), so even this page runs no inline script.
api_docs = csp_update({"style-src": [UNSAFE_INLINE]})(
    SpectacularSwaggerSplitView.as_view(url_name="schema")
)

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),  # load balancers: database and broker
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # before django.contrib.auth.urls: only with mail configured, and throttled
    path(
        "accounts/password_reset/",
        password_reset.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password_reset/done/",
        password_reset.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("annotate/", include("annotation.annotate_urls")),
    path("studies/", include("studio.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/version/", VersionView.as_view(), name="api-version"),
    path("api/docs/", api_docs, name="api-docs"),
    path("api/", include("metaeval.api_urls")),
    path("api/", include("judges.api_urls")),
    path("judges/", include("judges.urls")),
    path("reports/", include("metaeval.urls")),
    path("api/", include("studio.api_urls")),
    path("", include("annotation.urls")),
]

handler404 = "concord.errors.not_found"
handler400 = "concord.errors.bad_request"
handler403 = "concord.errors.permission_denied"
