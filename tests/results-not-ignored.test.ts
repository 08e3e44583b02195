// tests/results-not-ignored: what `experiment run --results curriculum/results/NAME` exports is committed whole — no
// file of a results folder (its runs/ and bench/ units, units.json, experiment.json) is left out by .gitignore (whose
// `runs/` rule once dropped every run of a results folder from the commit without a word).
import { spawnSync } from 'node:child_process'

const paths = [
  'curriculum/results/some-experiment/runs/two-stage-s0/metrics.jsonl',
  'curriculum/results/some-experiment/runs/two-stage-s0/adapter/adapter_model.safetensors',
  'curriculum/results/some-experiment/bench/start@unseen/trajectories.jsonl',
  'curriculum/results/some-experiment/units.json',
  'curriculum/results/some-experiment/experiment.json',
]

test.each(paths)('%s is not ignored by git', (p) => {
  const r = spawnSync('git', ['check-ignore', '-q', '--no-index', p])
  // exit 1: not ignored; 0: ignored; 128: git failed
  expect(r.status).toBe(1)
})

test('a run folder elsewhere is still ignored (the rule the exception sits under)', () => {
  expect(spawnSync('git', ['check-ignore', '-q', '--no-index', 'runs/x/metrics.jsonl']).status).toBe(0)
})
