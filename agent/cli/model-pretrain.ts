// agent/cli/model-pretrain: `searchgym model pretrain` — the run's identity as flags (model, worlds, out), its knobs
// from the field table (agent/train/pretrain-config: --config, --set, --steps, --backend, the old flags as aliases) →
// pretrain() (agent/train/pretrain): every weight of a
// model folder trained from its current values (a `model init` folder: from scratch) on the pages of one or more
// worlds, held-out loss on another world's pages, resumable; the result is an ordinary model folder (OUT/model:
// config.json, model.safetensors, the input's tokenizer files). Thin; composes the world package's texts with the engine.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
import { lockDir } from '../../infra/lock'
import { folderFingerprint, recordedPath } from '../../infra/recorded-path'
import { copyTokenizerFiles, Learner, loadModel, loadTokenizer, saveModel } from '../../infra/engine'
import { checkWorldDir, worldReadingTexts, worldTexts } from '../../world'
import { CHECKED_WORLD_STAGES } from '../world-check-stage'
import { openBackend } from '../train/backend'
import { pretrain } from '../train/pretrain'
import { PRETRAIN_FIELDS, validatePretrainOptions, type PretrainConfig } from '../train/pretrain-config'
import { fieldArgs, fieldOptions, identityOptions } from '../../infra/field-args'

interface PretrainArgs {
  model: string
  world: string[]
  'eval-world'?: string
  out: string
}

export const modelPretrainCommand: Command = {
  command: 'pretrain',
  describe: 'train every weight of a model folder (from scratch after model init) on world pages; resumable; writes OUT/model',
  builder: (y: Argv) =>
    fieldOptions(
      identityOptions(y, ['model', 'world', 'eval-world', 'out'], {
        model: 'model folder (config.json, model.safetensors, tokenizer files), e.g. from model init',
        world: 'world folder whose pages are trained on; repeat for a pool',
        'eval-world': 'world folder whose pages give the held-out loss (an unseen seed of the same config)',
        out: 'run folder (metrics.jsonl, checkpoint/, model/, pretrain.json); rerun to resume',
      }).example('$0 model pretrain --model models/tiny --world worlds/s1 --world worlds/s2 --eval-world worlds/s9 --out runs/pre --steps 300 --set seqLen=128', ''),
      PRETRAIN_FIELDS,
    ),
  handler: handler((argv: Record<string, unknown>) => {
    const a = argv as unknown as PretrainArgs
    // Every knob checked (types and bounds, named as given) before any world is read.
    const { config: c } = fieldArgs<PretrainConfig>(PRETRAIN_FIELDS, argv)
    for (const w of [...a.world, ...(a['eval-world'] ? [a['eval-world']] : [])])
      if (!existsSync(join(w, 'world.db'))) throw new ConfigError('pretrain.world', `no world at ${w} (no world.db): build it with searchgym world build`)
    // Their rows against their hashes (a page edited in place is refused, not trained on).
    const worldHashes = a.world.map((w) => checkWorldDir(w, CHECKED_WORLD_STAGES).hash)
    const evalHash = a['eval-world'] ? checkWorldDir(a['eval-world'], CHECKED_WORLD_STAGES).hash : null
    if (!existsSync(join(a.model, 'config.json'))) throw new ConfigError('pretrain.model', `no model at ${a.model} (no config.json): create one with searchgym model init`)
    // OUT/model is replaced at the end and OUT/checkpoint written along: neither may be the model read, nor hold it.
    const out = resolve(a.out), model = resolve(a.model)
    if (out === model || join(out, 'model') === model || model.startsWith(join(out, 'checkpoint')))
      throw new ConfigError('pretrain.out', `--out ${a.out} would overwrite the model it reads (--model ${a.model}: OUT/model is replaced at the end); give another --out`)
    if (out.startsWith(model + sep)) throw new ConfigError('pretrain.out', `--out ${a.out} is inside the model folder ${a.model}; give a folder of its own`)
    const { qaLines, backend, ...opts } = c
    validatePretrainOptions(opts)
    const existed = existsSync(a.out)
    mkdirSync(a.out, { recursive: true })
    // One writer per run folder: a second `model pretrain --out` on it is a one-line error naming the first.
    const lock = lockDir(a.out, 'model pretrain')
    try {
    const log = (line: string) => process.stderr.write(line + '\n')
    const tok = loadTokenizer(a.model)
    const sep = tok.special.pad ?? tok.special.eos
    const encode = (dirs: readonly string[], qa = false) => dirs.flatMap((d) => [...(qa ? worldReadingTexts(d) : worldTexts(d))].map((t) => tok.encode(t)))
    const docs = encode(a.world, qaLines)
    const heldOut = a['eval-world'] ? encode([a['eval-world']]) : []
    const modelPrint = folderFingerprint(a.model)
    const learner = new Learner(loadModel(a.model, openBackend(backend)), { trainable: 'full', maxTokensPerPass: Math.max(4096, c.batch * c.seqLen) })
    const r = pretrain(learner, docs, heldOut, { ...opts, separator: sep, out: a.out, log })
    // The model folder is written beside and renamed into place: a half-written one is never reported.
    const dst = join(a.out, 'model'), tmp = `${dst}.tmp`
    rmSync(tmp, { recursive: true, force: true })
    saveModel(learner.model, tmp)
    copyTokenizerFiles(a.model, tmp)
    rmSync(dst, { recursive: true, force: true })
    renameSync(tmp, dst)
    mkdirSync(a.out, { recursive: true })
    // Paths relative to the run folder (a copied folder keeps its provenance), never absolute; what they named by
    // content under identity (the model folder's fingerprint, each world's content hash).
    const worlds = a.world, evalWorld = a['eval-world'], rec = (p: string) => recordedPath(a.out, p)
    const identity = { model: modelPrint, worlds: worldHashes, evalWorld: evalHash }
    writeFileSync(join(a.out, 'pretrain.json'), JSON.stringify({ model: rec(a.model), worlds: worlds.map(rec), evalWorld: evalWorld ? rec(evalWorld) : null, qaLines, ...r, identity }, null, 2) + '\n')
    const idle = r.steps === 0 ? ' — NO optimizer step was made' : ''
    process.stdout.write(`model pretrain: ${dst}: ${r.steps} steps, ${r.tokens} tokens, train loss ${r.finalLoss.toFixed(4)}${r.heldOutLoss !== undefined ? `, held-out loss ${r.heldOutLoss.toFixed(4)}` : ''}, ${r.wallSeconds.toFixed(1)} s wall, ${r.cpuSeconds.toFixed(1)} CPU s${idle}\n`)
    } catch (e) {
      // Refused before any work (a bound pretrain() checks): no run folder is left behind.
      lock.release()
      if (!existed && readdirSync(a.out).length === 0) rmSync(a.out, { recursive: true, force: true })
      throw e
    } finally {
      lock.release()
    }
  }),
}
