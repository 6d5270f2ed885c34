"""The dashboard's pages, in the order of the navigation menu.

Each is a module ``dashboard/screens/<name>.py`` exposing ``TITLE: str``, ``URL_PATH: str``,
``ICON: str`` (a ``":material/...:"`` icon), ``ROLES: frozenset[Role] | None`` (None: every
role may see it) and ``render(ctx: PageContext) -> None`` (dashboard/context.py). The shell
(dashboard/shell.py) imports them with :func:`load`, shows each user the pages of their role,
and calls ``render`` inside its error boundary.

A page module that cannot be imported, or lacks one of the five names, does not take the
dashboard down: it is listed with the error the shell shows in its place.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dashboard.context import ROLES, PageContext, Role

PAGES: tuple[str, ...] = (
    "overview", "flags", "round", "dealers", "integrity", "rulesets", "cases", "access_log",
)  # fmt: skip
"""Module names under dashboard/screens/, in menu order; the first is the default page."""

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class PageSpec:
    """One page as the shell needs it."""

    name: str
    title: str
    url_path: str
    icon: str
    roles: frozenset[Role] | None
    render: Callable[[PageContext], None] | None
    """None when the module could not be loaded (``error`` says why)."""
    error: str = ""

    def visible_to(self, role: Role) -> bool:
        return self.roles is None or role in self.roles


def _spec(name: str, module: Any) -> PageSpec:
    title, url_path, icon = (getattr(module, n, None) for n in ("TITLE", "URL_PATH", "ICON"))
    roles: Any = getattr(module, "ROLES", ())
    render = getattr(module, "render", None)
    problems = [n for n, v in (("TITLE", title), ("URL_PATH", url_path), ("ICON", icon))
                if not isinstance(v, str) or not v]
    if roles is not None and not (isinstance(roles, frozenset) and roles <= set(ROLES)):
        problems.append("ROLES")
    if not callable(render):
        problems.append("render")
    if problems:
        return _broken(name, f"dashboard/screens/{name}.py lacks a valid {', '.join(problems)}")
    return PageSpec(name=name, title=str(title), url_path=str(url_path), icon=str(icon),
                    roles=roles, render=render)


def _broken(name: str, error: str) -> PageSpec:
    return PageSpec(name=name, title=name.replace("_", " ").capitalize(),
                    url_path=name.replace("_", "-"), icon=":material/error:", roles=None,
                    render=None, error=error)


def load(names: tuple[str, ...] = PAGES) -> list[PageSpec]:
    """Import every page module (cached by Python after the first time)."""
    specs = []
    for name in names:
        try:
            module = importlib.import_module(f"dashboard.screens.{name}")
        except Exception as exc:  # a broken page must not take the others down
            _LOG.exception("dashboard page %s cannot be imported", name)
            specs.append(_broken(name, f"dashboard/screens/{name}.py cannot be imported: "
                                       f"{type(exc).__name__}: {exc}"))
            continue
        specs.append(_spec(name, module))
    return specs
