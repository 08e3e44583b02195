// agent/policy/tools: the gym's two tools (search, access) as OpenAI function-tool schemas for native tool_calls.
// Mirrors the gym's tool contract (search(query) → top-k {title,url,snippet}; access(url) → full document).
import type { ChatCompletionTool } from 'openai/resources/chat/completions'

export const SEARCH_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the document collection. Returns the top results as title, url and snippet.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'A concise search query.' } },
      required: ['query'],
    },
  },
}

export const ACCESS_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'access',
    description: 'Open a document by its url (from search results) and return its full text.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'The url of a document returned by search.' } },
      required: ['url'],
    },
  },
}

export const GYM_TOOLS: ChatCompletionTool[] = [SEARCH_TOOL, ACCESS_TOOL]
