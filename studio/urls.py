"""Study administration and progress pages, mounted at /studies/ (namespace "studies")."""

from django.urls import path

from annotation.views import history, review
from studio import quality_views
from studio import views as studies

app_name = "studies"

urlpatterns = [
    path("", studies.study_list, name="list"),
    path("annotators/invite/", studies.invite_annotators, name="invite"),
    path("<int:study_id>/", studies.study_detail, name="detail"),
    path("<int:study_id>/settings/", studies.study_settings, name="settings"),
    path("<int:study_id>/import/", studies.study_import, name="import"),
    path("<int:study_id>/plan/", studies.study_plan, name="plan"),
    path("<int:study_id>/questions/", studies.study_questions, name="questions"),
    path(
        "<int:study_id>/questions/fields/",
        studies.study_question_fields,
        name="question_fields",
    ),
    path("<int:study_id>/expertise/", studies.study_expertise, name="expertise"),
    path("<int:study_id>/questions.csv", studies.study_questions_csv, name="questions_csv"),
    path("<int:study_id>/reassign/", studies.study_reassign, name="reassign"),
    path("<int:study_id>/adjudication/", studies.study_adjudication, name="adjudication"),
    path("<int:study_id>/authoring/", studies.study_authoring, name="authoring"),
    path(
        "<int:study_id>/questions/<int:question_id>/review/",
        studies.question_review,
        name="question_review",
    ),
    path("<int:study_id>/progress/", studies.study_progress, name="progress"),
    path(
        "<int:study_id>/progress/quality/",
        quality_views.progress_quality,
        name="progress_quality",
    ),
    path("<int:study_id>/quality/", quality_views.study_quality, name="quality"),
    path("<int:study_id>/quality.csv", quality_views.study_quality_csv, name="quality_csv"),
    path("adjudicate/", quality_views.my_adjudications, name="my_adjudications"),
    path("<int:study_id>/history/", history.study_history, name="history"),
    path("<int:study_id>/review/", review.study_review, name="review"),
    path("<int:study_id>/guidelines/", review.study_guidelines, name="guidelines"),
    path("<int:study_id>/guidelines/file", review.guidelines_file, name="guidelines_file"),
    path(
        "<int:study_id>/review/return/",
        review.return_for_revision,
        name="return_for_revision",
    ),
    path("<int:study_id>/progress.csv", studies.study_progress_csv, name="progress_csv"),
    path(
        "<int:study_id>/progress/<int:annotator_id>/",
        studies.annotator_progress,
        name="annotator_progress",
    ),
    path(
        "<int:study_id>/export/judgments.<str:fmt>",
        studies.export_study_judgments,
        name="export_judgments",
    ),
    path(
        "<int:study_id>/export/pairwise.zip", studies.export_study_pairwise, name="export_pairwise"
    ),
    path(
        "<int:study_id>/export/<str:kind>/<str:file_format>/",
        studies.export_study_format,
        name="export_format",
    ),
]
