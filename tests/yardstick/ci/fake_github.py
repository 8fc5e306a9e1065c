"""A small fake of GitHub's issue-comments REST API (aiohttp on 127.0.0.1, a free port): what the
CI gate reads and writes on a pull request, recorded for the tests to check."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web

TOKEN = "ghs-test-token"


@dataclass
class FakeGithub:
    url: str = ""
    comments: dict[int, str] = field(default_factory=dict)
    """comment id → body, of the one pull request the fake serves."""
    requests: list[str] = field(default_factory=list)
    """``METHOD path`` of every request, in order."""

    def app(self, repository: str, number: int) -> web.Application:
        issue = f"/repos/{repository}/issues/{number}/comments"

        @web.middleware
        async def authorized(request: web.Request, handler: web.RequestHandler) -> web.StreamResponse:
            self.requests.append(f"{request.method} {request.path}")
            if request.headers.get("Authorization") != f"Bearer {TOKEN}":
                return web.json_response({"message": "Bad credentials"}, status=401)
            return await handler(request)

        async def listed(request: web.Request) -> web.Response:
            page, per_page = int(request.query.get("page", 1)), int(request.query.get("per_page", 30))
            bodies = sorted(self.comments.items())[(page - 1) * per_page : page * per_page]
            return web.json_response(
                [{"id": i, "body": body, "user": {"login": "bot"}} for i, body in bodies]
            )

        async def created(request: web.Request) -> web.Response:
            comment_id = len(self.comments) + 1
            self.comments[comment_id] = (await request.json())["body"]
            return web.json_response({"id": comment_id, "body": self.comments[comment_id]}, status=201)

        async def edited(request: web.Request) -> web.Response:
            comment_id = int(request.match_info["id"])
            if comment_id not in self.comments:
                return web.json_response({"message": "Not Found"}, status=404)
            self.comments[comment_id] = (await request.json())["body"]
            return web.json_response({"id": comment_id, "body": self.comments[comment_id]})

        app = web.Application(middlewares=[authorized])
        app.router.add_get(issue, listed)
        app.router.add_post(issue, created)
        app.router.add_patch(f"/repos/{repository}/issues/comments/{{id}}", edited)
        return app


@asynccontextmanager
async def fake_github(repository: str, number: int) -> AsyncIterator[FakeGithub]:
    fake = FakeGithub()
    runner = web.AppRunner(fake.app(repository, number))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    fake.url = f"http://{host}:{port}"
    try:
        yield fake
    finally:
        await runner.cleanup()
