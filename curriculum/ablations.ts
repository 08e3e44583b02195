// curriculum/ablations: named training ablations as data — arms that differ in one train flag, trained for the same
// budget and seed from the same start and compared with `bench compare`. REWARD_ABLATION: issue 14's `two-stage` with
// terminal F1 vs `process` vs `cost` (gym/README.md, "Process and cost rewards"). Run by bench/perf/learn-demo.ts --reward-ablation.
export interface AblationArm {
  name: string
  /** Extra `searchgym train` flags of this arm. */
  flags: string[]
}

export interface Ablation {
  name: string
  curriculum: string
  /** The first arm is the baseline of the comparison. */
  arms: AblationArm[]
}

export const REWARD_ABLATION: Ablation = {
  name: 'reward',
  curriculum: 'two-stage',
  arms: [
    { name: 'f1', flags: ['--reward', 'f1'] },
    { name: 'process', flags: ['--reward', 'process'] },
    { name: 'cost', flags: ['--reward', 'cost'] },
  ],
}
