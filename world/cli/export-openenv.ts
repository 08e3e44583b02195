// world/cli/export-openenv: `world export --format openenv` — a world as an OpenEnv environment folder, the files
// OpenEnv's CLI reads (meta-pytorch/OpenEnv at 685de411): openenv.yaml with its `name` (cli/commands/build.py:413-419
// and push.py:213-243 refuse a folder without it; push.py:737 reads `variables`; auto/_discovery.py:276-320 reads
// name, description, spec_version, action, observation), pyproject.toml with a [project.scripts] `server` entry
// `…:main` and an openenv-core dependency, and server/app.py with main() called under `if __name__ == "__main__"`
// (cli/_validation.py:468-543), server/Dockerfile (build.py:261-271, push.py:343-356), README.md with the Hugging
// Face Space front matter (templates/openenv_env/README.md), and the package files the template has (__init__.py,
// client.py, models.py). The environment's server is `searchgym gym serve` (Node) on the folder's own copy of the
// world (SQLite's backup: one consistent file), which answers OpenEnv's routes; client.py is the Python package's
// searchgym/openenv.py and _ws.py copied as they are. uv.lock is not written (`uv lock` makes it; _validation.py:490-493).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WorldError } from '../../infra/errors'
import { openWorld } from '../store/open'

/** The environment's name: AutoEnv infers SearchGymEnv / SearchGymAction / SearchGymObservation from it (_discovery.py:192-223). */
export const OPENENV_ENV_NAME = 'search_gym'

// The CLI bundle keeps each source's own import.meta.url (bin/build-cli.mjs), so these resolve the same from dist/.
const CLIENT_SOURCES: Record<string, URL> = {
  'client.py': new URL('../../python/src/searchgym/openenv.py', import.meta.url),
  '_ws.py': new URL('../../python/src/searchgym/_ws.py', import.meta.url),
}

function source(u: URL): string {
  try {
    return readFileSync(u, 'utf8')
  } catch (e) {
    throw new WorldError('export.openenv_source', `cannot read ${fileURLToPath(u)}: ${(e as Error).message} (it ships in python/ of this repository)`)
  }
}

const yaml = (world: string, qa: number) => `# openenv.yaml: this folder as an OpenEnv environment (written by searchgym world export --format openenv).
spec_version: 1
name: ${OPENENV_ENV_NAME}
description: "SearchGym world ${world}: ${qa} multi-hop questions answered with search and access tools over a synthetic web; reward: token F1 of the answer"
type: space
# The server is searchgym gym serve (Node), started by server/app.py's main(); it answers OpenEnv's routes and /ws.
runtime: node
app: server.app:main
port: 8000
action: SearchGymAction
observation: SearchGymObservation
# Public Space variables (openenv push): the Space's proxy sets its own Host header.
variables:
  SEARCHGYM_ALLOW_HOST: "*"
`

const pyproject = () => `[build-system]
requires = ["setuptools>=45", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "openenv-${OPENENV_ENV_NAME}"
version = "0.1.0"
description = "A SearchGym world as an OpenEnv environment"
requires-python = ">=3.10"
# The client needs only the standard library; with openenv-core installed SearchGymEnv is its EnvClient.
dependencies = ["openenv-core[core]>=0.2.2"]

[project.scripts]
# uv run --project . server  (runs searchgym gym serve on world/; set SEARCHGYM to the searchgym command)
server = "${OPENENV_ENV_NAME}.server.app:main"

[tool.setuptools]
include-package-data = true
packages = ["${OPENENV_ENV_NAME}", "${OPENENV_ENV_NAME}.server"]
package-dir = { "${OPENENV_ENV_NAME}" = ".", "${OPENENV_ENV_NAME}.server" = "server" }
`

const APP_PY = `"""server/app.py: this folder's SearchGym world served as an OpenEnv environment.

OpenEnv's template runs a FastAPI app here (create_app, templates/openenv_env/server/app.py); this environment's server
is \`searchgym gym serve\` (Node), which answers OpenEnv's routes (/reset, /step, /state, /schema, /metadata, /mcp, the
WebSocket /ws, and all of them under /openenv) over the world in ../world. main() replaces this process with it.

Environment: SEARCHGYM, the searchgym command (default "searchgym"; e.g. "node /path/to/checkout/bin/searchgym.mjs");
SEARCHGYM_TOKEN, the token every route but /health asks for (as gym serve reads it); SEARCHGYM_ALLOW_HOST, Host names
to accept besides loopback and --host, comma-separated ("*": any, behind a proxy such as a Hugging Face Space).
"""
import argparse
import os
import shlex

HERE = os.path.dirname(os.path.abspath(__file__))
WORLD = os.path.join(os.path.dirname(HERE), "world")


def main(host: str = "0.0.0.0", port: int = 8000) -> None:
    cmd = shlex.split(os.environ.get("SEARCHGYM", "searchgym"))
    args = [*cmd, "gym", "serve", WORLD, "--host", host, "--port", str(port)]
    for name in filter(None, (h.strip() for h in os.environ.get("SEARCHGYM_ALLOW_HOST", "").split(","))):
        args += ["--allow-host", name]
    os.execvp(args[0], args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    a = parser.parse_args()
    main(host=a.host, port=a.port)
`

const DOCKERFILE = `# server/Dockerfile: the environment's image — Node for searchgym gym serve, this folder's world.
# Before building, put the searchgym package here as a tarball (from the checkout: npm pack --pack-destination server/).
FROM node:22-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 curl && rm -rf /var/lib/apt/lists/*
COPY server/searchgym-*.tgz /tmp/
RUN npm install -g /tmp/searchgym-*.tgz && rm /tmp/searchgym-*.tgz
COPY . /app/env
WORKDIR /app/env
ENV SEARCHGYM=searchgym SEARCHGYM_ALLOW_HOST=*
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 CMD curl -f http://localhost:8000/health || exit 1
CMD ["python3", "server/app.py", "--port", "8000"]
`

const INIT_PY = `"""The SearchGym world of this folder as an OpenEnv environment: SearchGymEnv (client.py) and its models."""
from .client import SearchGymEnv
from .models import SearchGymAction, SearchGymObservation, SearchGymState

__all__ = ["SearchGymAction", "SearchGymObservation", "SearchGymState", "SearchGymEnv"]
`

const MODELS_PY = `"""The action, observation and state models (defined in client.py, the searchgym package's searchgym/openenv.py)."""
from .client import SearchGymAction, SearchGymObservation, SearchGymState

__all__ = ["SearchGymAction", "SearchGymObservation", "SearchGymState"]
`

const readme = (world: string, qa: number, hash: string) => `---
title: SearchGym ${world}
emoji: 🔎
colorFrom: blue
colorTo: green
sdk: docker
pinned: false
app_port: 8000
tags:
  - openenv
---

# SearchGym world \`${world}\` as an OpenEnv environment

${qa} multi-hop questions over a synthetic web (content hash \`${hash.slice(0, 16)}…\`), answered with a search tool and an
access tool; the reward is the gym's (default: token F1 of the answer against the gold answer and its aliases). One
WebSocket session is one episode at a time; budgets (16 turns by default), rewards and truncation are the server's.

\`\`\`python
from ${OPENENV_ENV_NAME} import SearchGymAction, SearchGymEnv

with SearchGymEnv(base_url="http://127.0.0.1:8000").sync() as env:
    r = env.reset(split="bench", index=0)
    print(r.observation.question)
    r = env.step(SearchGymAction(tool_name="search", arguments={"query": r.observation.question}))
    r = env.step(SearchGymAction(tool_name="answer", arguments={"answer": "Paris"}))
    print(r.reward, r.done)
\`\`\`

Serve it: \`SEARCHGYM="node /path/to/searchgym/bin/searchgym.mjs" python3 server/app.py --port 8000\` (or
\`uv run --project . server\` after \`uv lock\`), or build the image after \`npm pack --pack-destination server/\` in the
searchgym checkout. The protocol, the action and observation fields and the TRL example: the searchgym repository's
docs/openenv.md.
`

/** Write the environment folder; returns file → size in bytes (for the command's summary). */
export async function exportOpenEnv(dir: string, out: string): Promise<Record<string, number>> {
  const w = openWorld(dir, { check: true })
  const files: Record<string, string> = {}
  let worldName: string
  try {
    worldName = basename(resolve(dir))
    const qa = (w.db.prepare("SELECT COUNT(*) AS n FROM qa WHERE split IN ('train', 'bench')").get() as { n: number }).n
    files['openenv.yaml'] = yaml(worldName, qa)
    files['pyproject.toml'] = pyproject()
    files['README.md'] = readme(worldName, qa, w.hash)
    files['__init__.py'] = INIT_PY
    files['models.py'] = MODELS_PY
    for (const [name, u] of Object.entries(CLIENT_SOURCES)) files[name] = source(u)
    files['server/__init__.py'] = ''
    files['server/app.py'] = APP_PY
    files['server/Dockerfile'] = DOCKERFILE
    try {
      mkdirSync(join(out, 'server'), { recursive: true })
      mkdirSync(join(out, 'world'), { recursive: true })
    } catch (e) {
      throw new WorldError('export.openenv_out', `cannot create export folder ${out}: ${(e as NodeJS.ErrnoException).code}`, { cause: e })
    }
    if (existsSync(join(out, 'world', 'world.db'))) throw new WorldError('export.openenv_out', `${out} already holds an exported world: export into a new folder`)
    for (const [name, text] of Object.entries(files)) writeFileSync(join(out, name), text)
    await w.db.backup(join(out, 'world', 'world.db'))
  } finally {
    w.close()
  }
  if (existsSync(join(dir, 'config.json'))) copyFileSync(join(dir, 'config.json'), join(out, 'world', 'config.json'))
  const sizes: Record<string, number> = {}
  for (const [name, text] of Object.entries(files)) sizes[name] = Buffer.byteLength(text)
  return sizes
}
