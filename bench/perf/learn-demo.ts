// bench/perf/learn-demo: the learning demonstration end to end through the real CLI — world build → model init
// (world tokenizer) → `train sft` (oracle warm start, search-r1 protocol, short observations) → `bench run` of the SFT
// adapter on the held-out slice of training questions → `train` GRPO two-stage from the SFT adapter → `bench run` of
// the GRPO adapter on the same slice → `bench compare` (paired CI of the gain) → `train report` (curves).
// `--ablation` also trains the four other arms (mixed, stage1-only, adaptive, two-stage --no-access) for the same
// budget from the same SFT start and compares all five. Every phase is skipped when its output exists (rerun the same
// command to resume); prints the wall time of every phase and writes times.json under --out.
//
// Usage: node bin/run-ts.mjs bench/perf/learn-demo.ts --out runs/learn-demo [--ablation] [--backend auto]
//          [--world-preset small] [--model-preset tiny] [--sft-epochs 18] [--sft-lr 1e-3] [--sft-max-hops 2]
//          [--held-out 600] [--eval-max-hops 2] [--steps 16] [--grpo-lr 3e-4] [--reward f1|f1+retrieval|…] (the GRPO
//          reward spec; the held-out evaluation is always F1) [--sft-batch 8] [--max-turns 14] [--sft-only] (stop after scoring the SFT start)
//          [--copy-first-turns N] [--copy-epochs 2] (a second SFT phase with N first-turn sequences, below)
//          [--copy-demos K] (only K demonstrations beside the first turns in that phase; default all)
//          [--access-epochs E] (an SFT phase on the demonstrations' second turn alone, the access; below)
//          [--answer-epochs A] (an SFT phase on the demonstrations' answer turns only, below)
//          [--answer-weight W] (every SFT phase but the answer-only one weights each demonstration's answer turn W×)
//          [--polish-epochs P] (a third SFT phase on the demonstrations alone, below) [--grpo-batch 64]
//          [--reward-ablation] (issue 14: also two-stage with the process and the cost reward, from the same start)
//          [--world-config FILE] (merged over the world preset, e.g. only 1–2-hop questions) [--init-adapter DIR] (the
//          first SFT phase starts from this adapter of the same model) [--temperature 1] (GRPO rollout temperature; the
//          learner's ratios use the model's own log-probs either way) [--switch-steps 8] (two-stage's stage switch)
//          [--grpo-max-hops H] (GRPO's stages capped at H hops; default --sft-max-hops)
//          [--tag T] (this invocation's GRPO arms and their scores go to grpo-ARM{T}/, bench-ARM{T}/, compare{T}/: another budget beside the same start)
//          [--group-size 8] (rollouts per question) [--refill-rounds 1] (extra draws for dropped constant groups)
//          [--name-tokens] (model init --name-tokens --tag-tokens: each entity name and search-r1 tag one token)
//          [--vocab N] (the world tokenizer's size, world:DIR@N; default 4096, or 8192 with --name-tokens)
//          [--oracle-answer open|read] (every SFT phase's demonstrations: read = answer with the name once the evidence is read)
//          [--first-turns N] (the first SFT phase also trains the oracle's first turn of N other training questions)
//          [--init-world DIR] (the world --init-adapter was trained on: held-out questions whose text is a training
//          question there are left out of the evaluation, so the start has seen none of them)
// Defaults: the `small` world (3,465 training questions), the `tiny` model (0.31 M parameters) with the world tokenizer,
// LoRA rank 64 (full rank at width 64) plus LoRA on the input embedding, SFT at lr 1e-3 — the earlier attempts used
// 1e-2 to 5e-2, at which a LoRA on a random model never learns to copy (bench/RESULTS.md, "the learning rate"); the
// evaluation slice is the held-out questions of at most --eval-max-hops hops (eval-ids.json); GRPO's curriculum stages
// are capped at --sft-max-hops (train config maxHops: two-stage = Simple 1–2 hops, then every type 1–2 hops).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { openGymWorld } from '../../gym'
import { REWARD_ABLATION } from '../../curriculum'
import { ablationTable } from './ablation-table'
import { join, resolve } from 'node:path'

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1].startsWith('--') ? process.argv[i + 1] : def
}
const flag = (name: string) => process.argv.includes(`--${name}`)
const num = (name: string, def: number): number => {
  const v = Number(arg(name, String(def)))
  if (!Number.isFinite(v) || v <= 0) {
    process.stderr.write(`learn-demo: --${name} must be a positive number\n`)
    process.exit(2)
  }
  return v
}

const out = resolve(arg('out', 'runs/learn-demo'))
const ablation = flag('ablation')
// Issue 14's reward ablation: two-stage with terminal F1 (the main arm) vs `process` vs `cost`, same config and start.
const rewardAblation = flag('reward-ablation')
const backend = arg('backend', 'auto')
// The demo env: search-r1 tags with the one-line system prompt, 3 results per search, pages opened by the title of a
// search result (the world tokenizer has names as whole words but spells URLs character by character, which no
// model trained from scratch can copy), pages of at most 2,000 characters.
const GYM = { topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true }
const PROTOCOL = 'search-r1'
const S = {
  world: arg('world-preset', 'small'),
  preset: arg('model-preset', 'tiny'),
  sftEpochs: num('sft-epochs', 18),
  sftBatch: num('sft-batch', 8),
  // LoRA learning rates: 1e-2 and above never learn to copy (bench/RESULTS.md, "the learning rate"); 1e-3 does.
  sftLr: num('sft-lr', 1e-3),
  sftMaxHops: num('sft-max-hops', 2),
  // GRPO's hop cap (train config maxHops); --grpo-max-hops, else the SFT's.
  grpoMaxHops: 0,
  loraRank: 64, // = hidden size of the tiny model: full rank
  heldOut: num('held-out', 600),
  evalMaxHops: num('eval-max-hops', 2),
  steps: num('steps', 16),
  grpoLr: num('grpo-lr', 3e-4),
  reward: arg('reward', 'f1'),
  groupSize: num('group-size', 8),
  batchSize: num('grpo-batch', 64), // trajectories per GRPO step: 8 questions × groupSize 8
  // Extra rounds of questions drawn when constant-reward groups were dropped (the trainer's refillRounds).
  refillRounds: Number(arg('refill-rounds', '1')),
  switchSteps: 8,
  // The oracle needs a median of 7 turns (mean 8) for a 2-hop question here (page by page, reading lazily): 14 leaves room.
  maxTurns: num('max-turns', 14),
  maxTokens: 48,
  temperature: num('temperature', 1),
}
S.switchSteps = num('switch-steps', S.switchSteps)
S.grpoMaxHops = num('grpo-max-hops', S.sftMaxHops)
const worldConfig = arg('world-config', '')
// `train sft --answer-weight W`: the final (answer) turn weighs W against 1 on the other assistant tokens, in one loss
// over the full demonstrations (the answer-only phase then polish did not carry over: bench/RESULTS.md).
const answerWeight = flag('answer-weight') ? num('answer-weight', 1) : undefined
const initAdapter = arg('init-adapter', '')
// `train sft --oracle-answer read`: a one-hop demonstration is search, access, answer (3 turns, not 5: the answer's
// own page is not opened once the page read names it) — shorter sequences, and the read step is the answer itself.
const oracleAnswer = arg('oracle-answer', 'open')
if (oracleAnswer !== 'open' && oracleAnswer !== 'read') {
  process.stderr.write(`learn-demo: --oracle-answer must be open or read, got ${oracleAnswer}\n`)
  process.exit(2)
}
const firstTurns = Number(arg('first-turns', '0'))
// --name-tokens: every entity name (and every search-r1 tag) is one token of the world tokenizer, so copying a name
// is copying one id — a third of this world's names are otherwise spelled in 6–30 character tokens (bench/RESULTS.md,
// "ninth attempt"). The names take ~2,400 ids: the vocabulary grows to 8,192 unless --vocab says otherwise.
const nameTokens = flag('name-tokens')
const vocab = num('vocab', nameTokens ? 8192 : 4096)
const initWorld = arg('init-world', '')
for (const [what, p] of [['--world-config', worldConfig], ['--init-adapter', initAdapter], ['--init-world', initWorld]] as const)
  if (p && !existsSync(p)) {
    process.stderr.write(`learn-demo: ${what} ${p} does not exist\n`)
    process.exit(2)
  }
const BIN = resolve('bin/searchgym.mjs')
const times: Record<string, number> = {}

function cli(phase: string, args: string[]): void {
  const t = performance.now()
  process.stderr.write(`\n== ${phase}: searchgym ${args.join(' ')}\n`)
  const r = spawnSync(process.execPath, [BIN, ...args], { stdio: 'inherit' })
  times[phase] = (performance.now() - t) / 1000
  if (r.status !== 0) {
    process.stderr.write(`learn-demo: ${phase} failed (exit ${r.status})\n`)
    process.exit(1)
  }
}

mkdirSync(out, { recursive: true })
const world = join(out, 'world')
const model = join(out, 'model')
const sft = join(out, 'sft')
/** `train sft` arguments of one SFT phase: the demo's world, model, protocol, env, hop cap, held-out slice and LoRA
 *  shape, with this phase's output folder, passes, batch and extra flags. */
function sftArgs(out: string, epochs: number, batch: number, extra: string[], weighted = true): string[] {
  // An answer-only (or one-turn) phase trains one turn alone: a weight on the answer means nothing there (and train
  // sft refuses both).
  if (weighted && answerWeight !== undefined && !extra.includes('--answer-only')) extra = [...extra, '--answer-weight', String(answerWeight)]
  return ['train', 'sft', '--world', world, '--model', model, '--out', out, '--protocol', PROTOCOL, '--gym-options', JSON.stringify(GYM), '--max-hops', String(S.sftMaxHops),
    '--oracle-answer', oracleAnswer, ...extra, '--epochs', String(epochs), '--batch', String(batch), '--lr', String(S.sftLr), '--held-out', String(S.heldOut), '--lora-rank', String(S.loraRank), '--lora-embed', '--backend', backend]
}
const t0 = performance.now()
if (!existsSync(join(world, 'world.db'))) cli('world build', ['world', 'build', '--preset', S.world, '--seed', '1', ...(worldConfig ? ['--config', resolve(worldConfig)] : []), '--out', world, '--quiet'])
// --embed-std 0.25 --qk-norm-weight 2.5: LoRA cannot change the embedding or the norms. With the defaults (0.02, 1) a
// random model's largest output logit is ≈ 1.3 and its attention logits are ≤ √headDim, so SFT stalls near ln V
// (bench/RESULTS.md, "Learning demonstration").
if (!existsSync(join(model, 'config.json'))) cli('model init', ['model', 'init', '--preset', S.preset, '--tokenizer', `world:${world}@${vocab}`, ...(nameTokens ? ['--name-tokens', '--tag-tokens'] : []), '--out', model, '--seed', '0', '--embed-std', S.preset === 'small' ? '0.125' : '0.25', '--qk-norm-weight', '2.5'])
if (!existsSync(join(sft, 'adapter')))
  cli('train sft', sftArgs(sft, S.sftEpochs, S.sftBatch, [...(initAdapter ? ['--init-adapter', resolve(initAdapter)] : []), ...(firstTurns > 0 ? ['--first-turns', String(firstTurns)] : [])]))
// --copy-first-turns N: a second SFT phase from the first one's adapter — the same demonstrations plus the oracle's
// first turn (`<search> NAME </search>`) of N more training questions, --copy-epochs passes at batch 16: many more
// names to copy from a question than the ≤ 2-hop demonstrations hold. Its adapter is then the SFT start.
const copyTurns = Number(arg('copy-first-turns', '0'))
// --copy-demos K: only K demonstrations beside the first turns (default all): with K = 1 the phase is almost only
// short first-turn sequences (~100 tokens, a few steps a second), so it gives the ~1,500 steps copying needs in minutes.
const copyDemos = flag('copy-demos') ? num('copy-demos', 1) : 0
let start = join(sft, 'adapter')
if (copyTurns > 0) {
  const sft2 = join(out, 'sft-copy')
  if (!existsSync(join(sft2, 'adapter')))
    cli('train sft (copy)', sftArgs(sft2, num('copy-epochs', 2), 16, ['--first-turns', String(copyTurns), '--init-adapter', start, ...(copyDemos ? ['--questions', String(copyDemos)] : [])]))
  start = join(sft2, 'adapter')
}
// --access-epochs E: an SFT phase from the current adapter on each demonstration's second turn alone (the access after
// the first search: copying the entity's title out of the search results), cut after it (train sft --turn 2), batch
// 16 — after the copy phase the model searches the right name and then opens a page it made up (bench/RESULTS.md,
// "eighth attempt"), and these ~500-token sequences cost a third of a whole demonstration.
const accessEpochs = Number(arg('access-epochs', '0'))
if (accessEpochs > 0) {
  const sftX = join(out, 'sft-access')
  if (!existsSync(join(sftX, 'adapter')))
    cli('train sft (access)', sftArgs(sftX, accessEpochs, 16, ['--turn', '2', '--init-adapter', start], false))
  start = join(sftX, 'adapter')
}
// --answer-epochs A: an SFT phase from the current adapter that trains only each demonstration's final turn (the
// answer) with the whole episode as context — the step the full-episode loss barely weights (bench/perf/answer-probe.ts:
// a fresh tiny model learns it to 22 % exact in 1,600 steps, while full-episode SFT reads ~4 % of one-hop answers).
const answerEpochs = Number(arg('answer-epochs', '0'))
if (answerEpochs > 0) {
  const sftA = join(out, 'sft-answer')
  if (!existsSync(join(sftA, 'adapter')))
    cli('train sft (answer)', sftArgs(sftA, answerEpochs, S.sftBatch, ['--answer-only', '--init-adapter', start]))
  start = join(sftA, 'adapter')
}
// --polish-epochs P: a third SFT phase from that adapter on the demonstrations alone (batch --sft-batch): the copy
// phase's batches are mostly short first turns, and the later turns of an episode drift while the first improves.
const polish = Number(arg('polish-epochs', '0'))
if (polish > 0) {
  const sft3 = join(out, 'sft-polish')
  if (!existsSync(join(sft3, 'adapter')))
    cli('train sft (polish)', sftArgs(sft3, polish, S.sftBatch, ['--init-adapter', start]))
  start = join(sft3, 'adapter')
}
// The evaluation slice: the held-out training questions within the SFT's hop range (the ids `train sft` held out).
const evalIds = join(out, 'eval-ids.json')
if (!existsSync(evalIds)) {
  const held = new Set(JSON.parse(readFileSync(join(sft, 'heldout.json'), 'utf8')) as string[])
  const norm = (t: string) => t.trim().toLowerCase()
  const seen = new Set<string>()
  if (initWorld) {
    const iw = await openGymWorld(resolve(initWorld))
    for (const q of iw.listQa('train')) seen.add(norm(q.question))
    await iw.close()
  }
  const gw = await openGymWorld(world)
  const slice = gw.listQa('train').filter((q) => held.has(q.id) && q.hops <= S.evalMaxHops)
  await gw.close()
  const ids = slice.filter((q) => !seen.has(norm(q.question))).map((q) => q.id)
  writeFileSync(evalIds, JSON.stringify(ids) + '\n')
  process.stderr.write(`learn-demo: ${ids.length} held-out questions of at most ${S.evalMaxHops} hops in ${evalIds}` +
    (initWorld ? ` (${slice.length - ids.length} left out: their text is a training question of ${initWorld})` : '') + '\n')
}

/** `bench run --policy engine` of an adapter on the held-out slice (the ids `train sft` wrote), greedy. */
function benchAdapter(phase: string, adapter: string, run: string): void {
  if (existsSync(join(run, 'summary.json'))) return
  cli(phase, ['bench', 'run', '--world', world, '--split', 'train', '--qa-ids', evalIds, '--policy', 'engine', '--model', model, '--adapter', adapter, '--backend', backend,
    '--protocol', PROTOCOL, '--temperature', '0', '--max-tokens', String(S.maxTokens), '--concurrency', '1', '--out', run, '--quiet',
    '--gym-options', JSON.stringify({ ...GYM, budgets: { maxTurns: S.maxTurns, maxResponseTokens: S.maxTokens, maxContextTokens: 4096 } })])
}

// The SFT start on the held-out slice first: if it scores nothing, GRPO sees all-0 groups and cannot learn.
const sftBench = join(out, polish > 0 ? 'bench-sft-polish' : answerEpochs > 0 ? 'bench-sft-answer' : accessEpochs > 0 ? 'bench-sft-access' : copyTurns > 0 ? 'bench-sft-copy' : 'bench-sft')
benchAdapter('bench sft', start, sftBench)
if (flag('sft-only')) {
  process.stdout.write(`learn-demo: SFT start scored in ${sftBench} (--sft-only: stopping before GRPO)\n`)
  process.exit(0)
}

// --tag T: the GRPO arms of this invocation live in grpo-ARM{T}/, bench-ARM{T}/, compare{T}/, arms{T}.md and
// grpo{T}.json beside the shared world, model and SFT start — e.g. an ablation at a smaller budget (--steps) next to
// the main run, from the same start.
const tag = arg('tag', '')
if (!/^[A-Za-z0-9._-]*$/.test(tag)) {
  process.stderr.write(`learn-demo: --tag ${tag}: use letters, digits, '.', '_' and '-' only\n`)
  process.exit(2)
}
const cfg = join(out, `grpo${tag}.json`)
writeFileSync(cfg, JSON.stringify({
  protocol: PROTOCOL, gym: { ...GYM, reward: S.reward }, turnBudget: 'fixed', maxTurns: S.maxTurns, maxTokensPerTurn: S.maxTokens, temperature: S.temperature, steps: S.steps, groupSize: S.groupSize, batchSize: S.batchSize, microBatch: 8,
  lr: S.grpoLr, klBeta: 0, lora: { rank: S.loraRank, alpha: 2 * S.loraRank, embedTokens: true }, evalEvery: 0, heldOut: S.heldOut, checkpointEvery: 2, switchSteps: S.switchSteps, refillRounds: S.refillRounds,
  // Every curriculum stage capped at --grpo-max-hops (default: the SFT's): two-stage = Simple 1–2 hops, then all types 1–2 hops.
  maxHops: S.grpoMaxHops,
}, null, 2) + '\n')
const arms: [string, string[]][] = [['two-stage', ['--curriculum', 'two-stage']]]
// The curriculum arms (issue 10) before the reward arms (issue 14): a stopped run leaves the first ones whole.
if (ablation) arms.push(['mixed', ['--curriculum', 'mixed']], ['stage1-only', ['--curriculum', 'stage1-only']], ['adaptive', ['--curriculum', 'adaptive']], ['two-stage-no-access', ['--curriculum', 'two-stage', '--no-access']])
if (rewardAblation) for (const arm of REWARD_ABLATION.arms.slice(1)) arms.push([`${REWARD_ABLATION.curriculum}-${arm.name}`, ['--curriculum', REWARD_ABLATION.curriculum, ...arm.flags]])
// Each arm is trained, reported and benched before the next starts, so a stopped run leaves whole arms behind.
const benches = [sftBench]
for (const [name, flags] of arms) {
  const run = join(out, `grpo-${name}${tag}`)
  // `train` resumes from its last checkpoint when rerun with the same flags.
  if (!existsSync(join(run, 'adapter'))) cli(`train ${name}`, ['train', '--world', world, '--model', model, '--adapter', start, ...flags, '--out', run, '--config', cfg, '--backend', backend])
  cli(`report ${name}`, ['train', 'report', run])
  const b = join(out, `bench-${name}${tag}`)
  benchAdapter(`bench ${name}`, join(run, 'adapter'), b)
  benches.push(b)
  writeFileSync(join(out, `times${tag}.json`), JSON.stringify(times, null, 2) + '\n')
}
cli('bench compare', ['bench', 'compare', ...benches, '--out', join(out, `compare${tag}`), '--groups', 'all'])
const table = ablationTable(`learn-demo: the SFT start and ${S.steps} GRPO steps per arm, held-out questions of at most ${S.evalMaxHops} hops (greedy)`,
  [{ name: 'sft', bench: sftBench }, ...arms.map(([name], i) => ({ name: `${name}${name === 'two-stage' ? ` (reward ${S.reward})` : ''}`, bench: benches[i + 1] }))],
  `Paired differences against the first row (the SFT start): compare${tag}/compare.md (bench compare).`)
writeFileSync(join(out, `arms${tag}.md`), table)
process.stdout.write(table)
times.total = (performance.now() - t0) / 1000
writeFileSync(join(out, `times${tag}.json`), JSON.stringify(times, null, 2) + '\n')
process.stdout.write(`learn-demo: done in ${times.total.toFixed(0)} s; phases ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v)])))}\n`)
