import { McpInputRefusal } from '../connection/input-responder.interface';
import { Checked } from './checked';

/** The checked value, or the check's refusal thrown (a legacy JSON-RPC error; a failed call in the modern era). */
export function orRefuse<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new McpInputRefusal(checked.error.code, checked.error.message);
  return checked.value;
}
