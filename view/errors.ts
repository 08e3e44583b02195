// view/errors: the viewer's error class (bad flags, unreadable run folders). HTTP answers use infra/http's HttpError.
import { SearchGymError } from '../infra/errors'

export class ViewError extends SearchGymError {}
