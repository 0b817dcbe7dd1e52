from annotation.management.commands._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import judge outputs: ResearchQA coverage or pairwise files, ResearcherBench rubric "
        "results, or a generic CSV (question,system,metric,value[,rationale]). ScholarQA-CS2 "
        "judge scores come with import_pairwise."
    )
    kind = "judge_scores"
