// world/qa/verl-gym-tool: the verl tool module `world export --format verl` ships (searchgym_verl_tool.py: the gym's env
// API inside verl's agent loop, Python 3 standard library) and its tool yaml. The module's one source is the Python
// package's python/src/searchgym/verl_tool.py, read here and copied as is; tests run the exported file with python3.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { WorldError } from '../../infra/errors'

// The CLI bundle keeps each source's own import.meta.url (bin/build-cli.mjs), so this resolves the same from dist/.
const VERL_TOOL_SOURCE = new URL('../../python/src/searchgym/verl_tool.py', import.meta.url)

/** The text of the verl tool module (python/src/searchgym/verl_tool.py). */
export function verlGymToolPy(): string {
  try {
    return readFileSync(VERL_TOOL_SOURCE, 'utf8')
  } catch (e) {
    throw new WorldError('export.verl_tool', `cannot read the verl tool module ${fileURLToPath(VERL_TOOL_SOURCE)}: ${(e as Error).message} (it ships in python/ of this repository)`)
  }
}

/** The tool yaml for SearchGymTool: search and access played on the gym's env API (searchgym_verl_tool.py's docstring). */
export function verlGymToolConfig(gymUrl: string): string {
  const tool = (action: 'search' | 'access', description: string, arg: string, argDesc: string) => `  - class_name: searchgym_verl_tool.SearchGymTool
    config:
      gym_url: ${gymUrl}
      action: ${action}
      timeout: 30
      env_idle_seconds: 60
      env_wait_seconds: 600
      type: native
    tool_schema:
      type: function
      function:
        name: ${action}
        description: ${description}
        parameters:
          type: object
          properties:
            ${arg}:
              type: string
              description: ${argDesc}
          required:
            - ${arg}
`
  return `# verl tool config: the whole SearchGym.ts gym (search + access played on the gym's env API, each call's env closed
# by its release), written by searchgym world export --format verl. Every Ray worker must import searchgym_verl_tool:
# +ray_kwargs.ray_init.runtime_env.py_modules=[$DATA/searchgym_verl_tool.py] ships it to every node (PYTHONPATH reaches
# only the driver's); rewards: custom_reward_function.path=pkg://searchgym_verl_tool, name=compute_score.
tools:
${tool('search', 'Search the world\'s encyclopedia; returns the best matching pages with their URLs.', 'query', 'A search query.')}${tool('access', 'Open a page by its URL (from a search result) and read it.', 'url', 'The URL of a page.')}`
}
