// gym/mcp-stdio: the MCP stdio transport of `gym mcp` — newline-delimited JSON-RPC on stdin/stdout, as the SDK's
// StdioServerTransport, but every line that is not a message is answered per JSON-RPC and logged on stderr instead of
// dropped in silence: not JSON → -32700; a batch (MCP has no batching since 2025-06-18), or JSON that is not a
// JSON-RPC message → -32600 (with the request's id when it has one); a line over maxLineBytes → -32600, its bytes
// discarded as they arrive (memory stays bounded) and the session goes on. Knows nothing of the gym.
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** The longest line read (the SDK's stdio buffer cap). */
export const MCP_STDIO_MAX_LINE_BYTES = 10 * 1024 * 1024

export class LineStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private parts: Buffer[] = []
  private size = 0
  /** Bytes of an oversized line still being thrown away (until its newline). */
  private skipping = false
  private closed = false

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly log: (line: string) => void = (l) => process.stderr.write(l + '\n'),
    private readonly maxLineBytes = MCP_STDIO_MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let from = 0
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      this.take(chunk.subarray(from, nl))
      this.endLine()
      from = nl + 1
    }
    if (from < chunk.length) this.take(chunk.subarray(from))
  }

  private readonly onError = (e: Error) => {
    this.log(`stdin failed: ${e.message}`)
    this.onerror?.(e)
  }

  private readonly onEnd = () => void this.close()

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onError)
    this.stdin.on('end', this.onEnd)
  }

  private take(part: Buffer): void {
    if (this.skipping || part.length === 0) return
    if (this.size + part.length > this.maxLineBytes) {
      this.parts = []
      this.size = 0
      this.skipping = true
      return
    }
    this.parts.push(part)
    this.size += part.length
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false
      this.reject(-32600, `a message line over ${this.maxLineBytes} bytes was discarded`, null)
      return
    }
    const line = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '')
    this.parts = []
    this.size = 0
    if (line.trim() === '') return
    let v: unknown
    try {
      v = JSON.parse(line)
    } catch (e) {
      this.reject(-32700, `parse error: the line is not JSON (${(e as Error).message})`, null)
      return
    }
    if (Array.isArray(v)) {
      this.reject(-32600, 'invalid request: a JSON-RPC batch; MCP takes one message per line', null)
      return
    }
    const m = JSONRPCMessageSchema.safeParse(v)
    if (!m.success) {
      const id = typeof v === 'object' && v !== null && (typeof (v as { id?: unknown }).id === 'string' || typeof (v as { id?: unknown }).id === 'number') ? ((v as { id: string | number }).id) : null
      this.reject(-32600, 'invalid request: not a JSON-RPC 2.0 message (jsonrpc "2.0", and a method or a result/error with an id)', id)
      return
    }
    this.onmessage?.(m.data)
  }

  /** Answer a line that is no message (JSON-RPC's error object, id null unless the request had one) and log it. */
  private reject(code: number, message: string, id: string | number | null): void {
    this.log(`mcp stdio: ${message} (answered ${code})`)
    this.write({ jsonrpc: '2.0', error: { code, message }, id })
  }

  private write(v: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(v) + '\n')) resolve()
      else this.stdout.once('drain', resolve)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onError)
    this.stdin.off('end', this.onEnd)
    this.stdin.pause()
    this.parts = []
    this.onclose?.()
  }
}
