"""The "Download full backup" link of the study's admin page (admins only)."""

import pytest

from annotation.models import Medal, Study
from studio.backup import import_study
from tests.builders.ranked import ranked_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def _staff(username: str, role: str | None, *, superuser: bool = False):
    user = make_user(username, role)
    user.is_staff, user.is_superuser = True, superuser
    user.save()
    return user


def test_an_admin_downloads_a_backup_that_restores(client, tmp_path):
    study = ranked_study(n_questions=3, name="admin-backup")
    client.force_login(_staff("boss", "admin", superuser=True))
    page = client.get(f"/admin/annotation/study/{study.pk}/change/")
    url = f"/admin/annotation/study/{study.pk}/backup/"
    assert url.encode() in page.content and b"Download full backup" in page.content

    response = client.get(url)
    assert response.status_code == 200
    assert "admin_backup-backup.zip" in response["Content-Disposition"]
    path = tmp_path / "download.zip"
    path.write_bytes(b"".join(response.streaming_content))
    medals = Medal.objects.count()
    import_study(path, new_name="restored")
    assert Study.objects.filter(name="restored").exists()
    assert Medal.objects.count() == 2 * medals


def test_staff_without_the_admin_role_cannot_download(client):
    study = ranked_study(n_questions=1, name="admin-backup")
    client.force_login(_staff("helper", "researcher"))
    assert client.get(f"/admin/annotation/study/{study.pk}/backup/").status_code == 403
    client.logout()
    response = client.get(f"/admin/annotation/study/{study.pk}/backup/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_page_of_a_missing_study_is_not_found(client):
    client.force_login(_staff("boss", "admin"))
    assert client.get("/admin/annotation/study/999999/backup/").status_code == 404
