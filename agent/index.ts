// agent/index: the agent package's public surface — policies (OpenAI-compatible chat, baselines, the oracle), the
// chat client, the oracle check of a world (a build stage and `gym check`), and the agent's commands.
export { ChatClient, ContextOverflowError, DEFAULT_CHAT_CLIENT, EndpointError, isContextOverflow, type ChatClientOptions, type CallRecord } from './policy/chat-client'
export { OpenAiPolicy, type RecordedTurn } from './policy/openai'
export { ClosedBookPolicy } from './policy/closed-book'
export { OneShotRagPolicy } from './policy/one-shot-rag'
export { readPriceTable, type PriceTable } from './policy/pricing'
export { oraclePolicy, runOracle, oracleCallText, oracleObservation, ORACLE_BUDGETS, ORACLE_GYM_OPTIONS } from './oracle/oracle'
export { ORACLE_MAX_QUERIES_PER_PAGE, type OracleKnowledge } from './oracle/oracle-plan'
export { worldOracleKnowledge } from './oracle/oracle-knowledge'
export { checkWithOracle, checkWorldFolder, CHECK_GYM_OPTIONS } from './oracle/oracle-check'
export { CheckRunner, pathEdges } from './oracle/oracle-check-shard'
export { oracleCheckStage, oracleCheckStageWith, CHECKED_WORLD_STAGES } from './world-check-stage'
export { agentCommands, checkCommand } from './cli/commands'
// The turn loop and its records (bench and trainer share them).
export { goldsOf, runEpisode } from './rollout/episode'
export type { AnswerScorer, TurnRecord, EpisodeCounts, InfraCounts, JudgeVerdict, TrajectoryRecord } from './rollout/types'
// Training: config, backend choice, the GRPO loop, SFT warm start, the question-source interface. (Test fixtures live under tests/fixtures, injected by tests.)
export { resolveTrainConfig, resolveTrainConfigAt, DEFAULT_TRAIN_CONFIG, TRAIN_FIELDS, TRAIN_INT_BOUNDS, type TrainConfig } from './train/config'
export { openBackend } from './train/backend'
export { train, NO_UPDATE_LINE, runOptimizerSteps, type TrainResult } from './train/loop'
export { answerTurnWeights, lastTurnStart, sftTrain, sequenceOfTrajectory, type SftSequence } from './train/sft'
export { buildDatums, microBatches } from './grpo/datums'
export type { QuestionOutcome, QuestionSource } from './train/source'
export { PolicyBatch, type TokenSampler, type TokenSequence } from './policy/engine-policy'
export { EngineSampler } from './policy/engine-sampler'
// Process rewards (issue 14): per-turn step signals in the record, turn-level GRPO credit, scripted guard policies.
export type { StepSignalRecord } from './rollout/types'
export { turnAdvantages, fewestRetrievalsBonus } from './grpo/turn-credit'
export { scriptedPolicy, wandererPolicy, spammerPolicy, noSearchPolicy, searchTurn, accessTurn, answerTurn } from './policy/scripted'
// A local model (+ adapter) as an evaluation policy (bench run --policy engine).
export { openLocalEngine, type LocalEngine, type LocalEngineOptions } from './policy/local-engine'
export { profileCheck, chooseShippedLimits, exportTuner, renderSearch, pageRetriever, type ProfileReport, type ProfileRun } from './oracle/profile-check'
export { tokenizerSourceOf, LEXICON_WEIGHT, type TokenizerSourceOptions } from './cli/model-init'
