"""Task pages' domain logic: what a form means, what is valid, what gets written.

Views stay thin: they load a :class:`~annotation.annotate.page.TaskPage`, ask the task's
spec (``registry.SPECS``) to parse and check the posted payload, and hand it to
``drafts.save_draft`` / ``drafts.submit``. Everything here can be tested without a browser.
"""
