"""Execute reference actions (role + accessible-name targets) in a Playwright page."""

from __future__ import annotations

from typing import Any

from webtraj.model.action import Action, ActionKind

_SETTLED = ("() => document.readyState === 'complete' && document.body !== null"
            " && !document.body.hasAttribute('data-busy')")


def locate(page: Any, action: Action) -> Any:
    t = action.target
    if t is None:
        raise ValueError(f"reference action {action.kind.value} has no target")
    return page.get_by_role(t.role, name=t.name, exact=t.exact).nth(t.nth)


async def settle(page: Any, timeout: float = 10_000) -> None:
    """Wait until a page load or a client-side render has finished. The sites mark the body
    `data-busy` while a navigation or fetch is under way; a navigation destroys the context
    being polled, so polling restarts on the new document."""
    for attempt in range(5):
        try:
            await page.wait_for_load_state("load", timeout=timeout)
            await page.wait_for_function(_SETTLED, timeout=timeout, polling=20)
            return
        except Exception as exc:  # context destroyed by the navigation we are waiting for
            if "destroyed" not in str(exc) and "navigat" not in str(exc) or attempt == 4:
                raise


async def run_action(page: Any, action: Action, timeout: float = 10_000) -> None:
    k = action.kind
    if k is ActionKind.CLICK:
        await locate(page, action).click(timeout=timeout)
    elif k is ActionKind.TYPE:
        loc = locate(page, action)
        await loc.fill(action.value or "", timeout=timeout)
        if action.press_enter:
            await loc.press("Enter", timeout=timeout)
    elif k is ActionKind.SELECT:
        await locate(page, action).select_option(label=action.value, timeout=timeout)
    elif k is ActionKind.HOVER:
        await locate(page, action).hover(timeout=timeout)
    elif k is ActionKind.PRESS:
        await page.keyboard.press(action.value or "Enter")
    elif k is ActionKind.SCROLL:
        if action.point is not None:
            await page.mouse.move(*action.point)
        await page.mouse.wheel(0, 600 if action.value == "down" else -600)
    elif k is ActionKind.GOTO:
        await page.goto(action.value or "about:blank", timeout=timeout)
    elif k is ActionKind.GO_BACK:
        await page.go_back(timeout=timeout)
    elif k is ActionKind.GO_FORWARD:
        await page.go_forward(timeout=timeout)
    elif k is ActionKind.STOP:
        return
    else:
        raise ValueError(f"reference actions do not use {k.value}")
    await settle(page, timeout)


async def run_reference(page: Any, start_url: str, actions: tuple[Action, ...] | list[Action],
                        timeout: float = 10_000) -> list[str]:
    """Open `start_url`, run every action, return the page URL before each action and at
    the end (the observation URLs the oracle reads)."""
    await page.goto(start_url, timeout=timeout)
    await settle(page, timeout)
    urls = [page.url]
    for action in actions:
        await run_action(page, action, timeout)
        urls.append(page.url)
    return urls
