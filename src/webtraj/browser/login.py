"""Logging in through a site's own login form before an episode starts (a deployment's
accounts, e.g. WebArena's), in the episode's tab, so the session cookies are the episode's and
every request goes through its allowlist and into its HAR."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from webtraj.browser.config import FormLogin
from webtraj.model.errors import InfrastructureError

_FILL = """([user, pass]) => {
  const pw = document.querySelector('input[type=password]');
  if (!pw) return 'no password field on the login page';
  const scope = pw.form || document;
  const skip = ['hidden', 'password', 'submit', 'checkbox', 'radio', 'button', 'image'];
  const name = [...scope.querySelectorAll('input')].find(i => !skip.includes(i.type));
  if (!name) return 'no user name field beside the password field';
  name.value = user; pw.value = pass;
  if (!pw.form) return 'the password field is in no form';
  if (pw.form.requestSubmit) pw.form.requestSubmit(); else pw.form.submit();
  return '';
}"""


async def form_login(page: Page, login: FormLogin, *, timeout_ms: float) -> None:
    """Fill and submit the login form at `login.login_url`; InfrastructureError when the site
    cannot be logged in to (the episode is then an error, never a score)."""
    what = f"login to {login.site} as {login.username} at {login.login_url}"
    try:
        await page.goto(login.login_url, timeout=timeout_ms)
        async with page.expect_navigation(timeout=timeout_ms):
            problem = await page.evaluate(_FILL, [login.username,
                                                  login.password.get_secret_value()])
            if problem:
                raise InfrastructureError(f"{what}: {problem}")
        await page.wait_for_load_state("load", timeout=timeout_ms)
        still = await page.evaluate("() => !!document.querySelector('input[type=password]')")
    except PlaywrightError as exc:
        raise InfrastructureError(f"{what}: {str(exc).splitlines()[0]}") from None
    if still and page.url.split("?")[0].rstrip("/") == login.login_url.split("?")[0].rstrip("/"):
        raise InfrastructureError(f"{what} failed: the login page is shown again (wrong "
                                  "account or password?)")
