"""Task pages' domain logic: what a form means, what is valid, what gets written.

Views stay thin: they load a :class:`~annotation.annotate.page.TaskPage`, ask the task's
spec (``registry.SPECS``) to parse and check the posted payload, and hand it to
``drafts.save_draft`` / ``drafts.submit``. Each task type lives in the module named after its
key and declares its posted fields once, as a :class:`~annotation.annotate.form.Form`; the
shared parser turns autosaves and submits into payloads and names the unit and field of every
refusal. Everything here can be tested without a browser.
"""
