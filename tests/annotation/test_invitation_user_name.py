"""An invited annotator is told their user name (a case-sensitive pseudonym) in the
invitation and on the set-password page, which is Concord's own, not Django admin's
(issue 26, dead end 8)."""

import html

import pytest
from django.urls import reverse

from annotation.models import Annotator

pytestmark = pytest.mark.django_db


def test_invitation_and_set_password_page_name_the_user(client, admin_user):
    client.force_login(admin_user)
    page = client.post(reverse("studies:invite"), {"expertise": "Biology", "degree": "PhD"})
    text = html.unescape(page.content.decode())
    name = Annotator.objects.get().pseudonym
    assert "User name (case-sensitive)" in text
    assert f"Your user name (case-sensitive): {name}\n" in text  # the message to send
    link = text.split("Set your password here (the link works once and expires): ")[1].split()[0]
    client.logout()
    form = client.get(link, follow=True)
    body = form.content.decode()
    assert form.status_code == 200 and "Set your password" in body
    assert f"Your user name is <strong><code>{name}</code></strong>" in body
    assert "Django" not in body and 'class="brand"' in body  # the product's own page
    done = client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link,
        {"new_password1": "a long enough pass 42", "new_password2": "a long enough pass 42"},
        follow=True,
    )
    body = done.content.decode()
    assert "Your password is set" in body and "Django" not in body
    assert client.login(username=name, password="a long enough pass 42")
    assert not client.login(username=name.lower(), password="a long enough pass 42")


def test_a_used_link_says_so_on_the_product_page(client, admin_user):
    client.force_login(admin_user)
    page = client.post(reverse("studies:invite"), {"expertise": "Biology"})
    text = html.unescape(page.content.decode())
    link = text.split("Set your password here (the link works once and expires): ")[1].split()[0]
    client.logout()
    form = client.get(link, follow=True)
    url = form.redirect_chain[-1][0]
    client.post(
        url, {"new_password1": "another good pass 7", "new_password2": "another good pass 7"}
    )
    again = client.get(link, follow=True).content.decode()
    assert "This link has been used or has expired" in again and "Django" not in again
