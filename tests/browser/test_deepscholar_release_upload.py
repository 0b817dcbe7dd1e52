"""DeepScholar-Bench's released folders, zipped, uploaded through the study's import page in
Chromium (issue 26, dead end 1; issue 25): an admin reaches a study whose reports read as
released, with no command line."""

import pytest

from annotation.models import Report, Study
from tests.annotation.test_deepscholar_release import DS, PAPERS, check_study, zipped

pytestmark = [pytest.mark.browser, pytest.mark.shared_data, pytest.mark.django_db(transaction=True)]


def test_released_system_zips_upload_through_the_import_page(login, admin_user, shot, tmp_path):
    from playwright.sync_api import expect

    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")
    study = Study.objects.create(name="DS")
    page = login(admin_user).new_page()
    page.goto(f"/studies/{study.pk}/")
    expect(page.locator("#import-formats")).to_contain_text("storm_gen_article_polished.md")
    for system in ("deepscholar-base", "storm"):
        archive = tmp_path / f"{system}.zip"
        archive.write_bytes(zipped(DS / "baselines_results" / system))
        form = page.locator("#import-form")
        form.locator("#id_kind").select_option("reports")
        form.locator("#id_format").select_option("deepscholar")
        form.locator("#id_file").set_input_files(str(archive))
        form.locator("#id_papers").set_input_files(str(PAPERS))
        form.locator("button[type=submit]").click()
        expect(page.locator(".messages")).to_contain_text("imported 2 records")
    shot(page, "deepscholar-release-upload")
    assert Report.objects.filter(question__study=study).count() == 4
    check_study("DS", systems=("deepscholar-base", "storm"))
