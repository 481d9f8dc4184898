"""``farl serve`` driven in headless Chromium (Selenium): the steps of ``tests/test_serve_browser.py`` and the picture
of the browser page in the docs.

Command: ``python -m studies.serve_picture.browser docs/images/serve.png`` (from the checkout; needs the ``web``
extra, Selenium and a Chromium with its driver). Page: ``docs/serve.md`` shows the picture.
"""
