import { CURRENT_USER_KEY, type Config } from '../config.js';
import type { Session, User } from '../types.js';

/** Stores a session (the user is persisted; the token stays in memory). */
export function setSession(config: Config, session: Session): void {
  config.store.setState({ session, sessionStatus: 'success', sessionError: null });
  config.storage.setItem(CURRENT_USER_KEY, session.user);
}

/** Replaces the user of the current session (after link / unlink). */
export function setUser(config: Config, user: User): void {
  const session = config.store.getState().session;
  setSession(config, { ...(session ?? {}), user });
}

/** Forgets the session locally. */
export function clearSession(config: Config): void {
  config.store.setState({ session: null });
  config.storage.removeItem(CURRENT_USER_KEY);
}

/**
 * Ends the session: forgets it locally at once, then asks the endpoint to sign out (which clears the cookie).
 * Endpoint errors are ignored: this runs when the wallet switched account, with no one to report to.
 */
export async function endSession(config: Config): Promise<void> {
  clearSession(config);
  await config.client.signOut().catch(() => {});
}
