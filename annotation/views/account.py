"""The account page: the user's API token, to read and to rotate (issue 28).

Label Studio and Argilla show a user their token on their account page; here it was only
handed out by ``POST /api/auth/token/``, so a researcher with a browser session had to
script a login to get one. Rotating deletes the old token at once (anything holding it gets
401) and makes a new one; an expired token is replaced when the page is opened, as the
token endpoint does (``concord.tokens``).
"""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from concord.tokens import fresh_token


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request):
    if request.method == "POST":
        with transaction.atomic():
            Token.objects.filter(user=request.user).delete()
            Token.objects.create(user=request.user)
        messages.success(request, "A new token was made; the old one no longer works.")
        return redirect("account_token")
    token = fresh_token(request.user)
    days = settings.CONCORD_TOKEN_TTL_DAYS
    context = {
        "token": token,
        "expires": token.created + timedelta(days=days) if days else None,
        "base_url": request.build_absolute_uri("/").rstrip("/"),
    }
    response = render(request, "annotation/account/token.html", context)
    response["Cache-Control"] = "no-store"  # a secret: never kept by a shared cache
    return response
