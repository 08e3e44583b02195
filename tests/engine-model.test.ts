// tests/engine-model: the model-level contract (infra/engine/model-contract.ts) on the ts backend.
import { runModelContract } from '../infra/engine/model-contract'
import { createTsBackend } from '../infra/engine/ts-backend'

runModelContract({ name: 'ts', make: createTsBackend })
