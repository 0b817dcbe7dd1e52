"""The study's admin page as the admin site shows it: annotation's ``StudyAdmin`` plus the
two actions that write a full backup (the backup download and the one way to delete a
study). A backup holds judges' verdicts as well as expert judgments, so these compose every
app and live here, above annotation, judges and metaeval (README, "Architecture").
"""

import tempfile
from pathlib import Path

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path

from annotation import roles
from annotation.admin import StudyAdmin as AnnotationStudyAdmin
from annotation.models import DraftVersion, Study
from studio.backup import export_study
from studio.studyadmin import StudyAdminError
from studio.studyadmin.deletion import delete_study, judgment_models


class DeleteStudyForm(forms.Form):
    confirm = forms.CharField(help_text="Type the study's exact name to confirm")


admin.site.unregister(Study)


@admin.register(Study)
class StudyAdmin(AnnotationStudyAdmin):
    def get_urls(self):
        extra = [
            path(
                "<int:study_id>/backup/",
                self.admin_site.admin_view(self.backup_view),
                name="annotation_study_backup",
            ),
            path(
                "<int:study_id>/delete-with-backup/",
                self.admin_site.admin_view(self.delete_with_backup_view),
                name="annotation_study_delete_with_backup",
            ),
        ]
        return extra + super().get_urls()

    def delete_with_backup_view(self, request, study_id: int):
        """The one way to delete a study: confirmed by typing its name, after its backup."""
        if not roles.is_admin(request.user):
            raise PermissionDenied("Only admins can delete a study.")
        study = get_object_or_404(Study, pk=study_id)
        form = DeleteStudyForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                done = delete_study(study, confirm=form.cleaned_data["confirm"])
            except StudyAdminError as exc:
                form.add_error("confirm", exc.message)
            else:
                messages.success(
                    request,
                    f"Study “{done.study}” deleted ({done.judgments} judgments); "
                    f"its backup is {done.backup.name} in the backup folder.",
                )
                return redirect("admin:annotation_study_changelist")
        counts = {
            "judgments": sum(m.objects.filter(study=study).count() for m in judgment_models()),
            "versions": DraftVersion.objects.filter(assignment__study=study).count(),
        }
        context = {
            **self.admin_site.each_context(request),
            "title": f"Delete {study.name}",
            "study": study,
            "form": form,
            "counts": counts,
            "opts": self.model._meta,
        }
        status = 400 if request.method == "POST" else 200
        return TemplateResponse(
            request, "admin/annotation/study/delete_with_backup.html", context, status=status
        )

    def backup_view(self, request, study_id: int):
        """The full backup of a study (``manage.py export_study``) as a download, for
        admins. Restoring stays a command: it creates users and must be run deliberately."""
        if not roles.is_admin(request.user):
            raise PermissionDenied("Only admins can download a full backup.")
        study = get_object_or_404(Study, pk=study_id)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "study.zip"
            export_study(study, path)
            handle = path.open("rb")  # stays readable after the folder is removed
        slug = "".join(c if c.isalnum() else "_" for c in study.name).strip("_") or "study"
        return FileResponse(
            handle, as_attachment=True, filename=f"{slug}-backup.zip",
            content_type="application/zip",
        )  # fmt: skip
