// infra/http/errors: the one HTTP error kit both servers (gym serve, model serve) answer with — an error with a
// status and a stable code, rendered in OpenAI's JSON shape {error: {message, type, param, code}} (a superset of the
// gym's older {error: {code, message}}). Knows nothing of routes or of either server's domain.
import { SearchGymError } from '../errors'

export type HttpStatus = 400 | 401 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503

export interface HttpErrorBody {
  error: { message: string; type: string; param: string | null; code: string }
}

export class HttpError extends SearchGymError {
  constructor(
    readonly status: HttpStatus,
    code: string,
    message: string,
    /** The request field at fault, when one is (OpenAI's `param`). */
    readonly param: string | null = null,
  ) {
    super(code, message)
  }

  body(): HttpErrorBody {
    return errorBody(this.status, this.code, this.message, this.param)
  }
}

export function errorBody(status: number, code: string, message: string, param: string | null = null): HttpErrorBody {
  const type =
    status >= 500 ? 'server_error' : status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : status === 429 ? 'rate_limit_error' : 'invalid_request_error'
  return { error: { message, type, param, code } }
}
