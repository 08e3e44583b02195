// gym/step-signals tests: observe() finds an evidence sentence exactly when the whitespace-squashed observation holds
// it — the same answers as squashing every observation (the reference below), on seeded random texts that break
// sentences over newlines, tabs, double and non-breaking spaces, and on texts holding only the sentence's words.
import { Rng } from '../infra/rng'
import { StepSignals } from './step-signals'

const reference = (text: string, sentence: string): boolean => text.replace(/\s+/g, ' ').trim().includes(sentence.replace(/\s+/g, ' ').trim())
const WORDS = ['Alder', 'was', 'born', 'in', 'Brenlow', 'the', 'capital', 'of', 'Velmora', 'founded', '1921', 'Harrow', 'House.', 'é']
const GAPS = [' ', ' ', ' ', ' ', '\n', '  ', '\t', '\u00a0', ' \n ', '\n\n']

function sentence(rng: Rng): string {
  return Array.from({ length: rng.int(1, 6) }, () => rng.pick(WORDS)).join(' ')
}
/** The words of `s` (and others) with random whitespace between them. */
function text(rng: Rng, s: string[]): string {
  const words = [...s.flatMap((x) => (rng.bool(0.8) ? x.split(' ') : [])), ...Array.from({ length: rng.int(0, 8) }, () => rng.pick(WORDS))]
  // Half the texts are shuffled (the words are there, the sentence mostly not); the others keep the sentences' order.
  if (rng.bool(0.5))
    for (let i = words.length - 1; i > 0; i--) {
      const j = rng.int(0, i)
      ;[words[i], words[j]] = [words[j], words[i]]
    }
  return (rng.bool(0.3) ? rng.pick(GAPS) : '') + words.map((w, i) => (i ? rng.pick(GAPS) : '') + w).join('') + (rng.bool(0.3) ? rng.pick(GAPS) : '')
}

test('evidence_new matches squash-then-includes on 3,000 seeded random episodes', () => {
  const rng = Rng.derive(19, 'step-signals-observe')
  let found = 0
  for (let n = 0; n < 3000; n++) {
    const sentences = Array.from({ length: rng.int(1, 4) }, () => sentence(rng))
    const sig = new StepSignals({ docs: [], evidence: sentences.map((s, hop) => ({ hop, url: 'u', sentence: rng.bool(0.2) ? ` ${s.replace(' ', '\n')} ` : s })) })
    const seen = new Set<number>()
    for (let step = 0; step < 3; step++) {
      const obs = text(rng, sentences)
      const want = sentences.filter((s, i) => !seen.has(i) && reference(obs, s) && seen.add(i)).length
      sig.begin()
      sig.observe(obs)
      expect(sig.counts().evidence_new).toBe(want)
      found += want
    }
  }
  expect(found).toBeGreaterThan(500) // the random texts do hold sentences often enough to test both answers
})
