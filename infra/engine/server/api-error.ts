// infra/engine/server/api-error: errors the server answers with, in OpenAI's JSON shape {error:{message,type,param,code}}.
import { EngineError } from '../../errors'

export class ApiError extends EngineError {
  constructor(
    readonly status: 400 | 404 | 413 | 422 | 500 | 503,
    code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(code, message)
  }

  body(): { error: { message: string; type: string; param: string | null; code: string } } {
    const type = this.status >= 500 ? 'server_error' : this.status === 404 ? 'not_found_error' : 'invalid_request_error'
    return { error: { message: this.message, type, param: this.param, code: this.code } }
  }
}
