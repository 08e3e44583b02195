// infra/engine/server/api-error: the model server's errors are the one HTTP error kit (infra/http/errors), whose body
// is OpenAI's JSON shape {error:{message,type,param,code}}; the old name stays so existing imports keep working.
export { HttpError as ApiError } from '../../http/errors'
