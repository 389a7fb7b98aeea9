import { AddressNotFoundError, ConfigError, DataNotSignedError, NoAccountError, UserNotFoundError } from '../../errors/index.js';
import type { Config } from '../config.js';
import type { Connector, SolanaConnector } from '../connectors/types.js';
import type { User } from '../types.js';
import { clearSession, setSession, setUser } from './session.js';
import { connect } from './wallet.js';

/** Parameters of `signIn`. */
export interface SignInParameters {
  /** The wallet to sign in with; default the connected one, else the config's first connector. */
  connector?: Connector;
}

/**
 * Signs in with a wallet: connects it when needed, GETs the message from the endpoint, has the wallet sign it
 * (`personal_sign` on EVM, `signMessage` on Solana), POSTs it to `/signin` and keeps the session.
 */
export async function signIn(config: Config, parameters: SignInParameters = {}): Promise<User> {
  let { connector, account } = config.store.getState().wallet;
  if (!connector || !account || (parameters.connector && parameters.connector !== connector)) {
    ({ connector, account } = await connect(config, { connector: parameters.connector }));
  }
  if (!account) throw connector.type === 'solana' ? new AddressNotFoundError() : new NoAccountError();
  const chain = connector.type;
  const { message } = await config.client.getMessage(account, chain);
  const signature = await connector.signMessage(message, account);
  if (!signature) throw new DataNotSignedError();
  const res = await config.client.signIn({ chain, address: account, message, signature });
  // The session itself is the server's HttpOnly cookie; a token is kept (in memory) only if the endpoint sent one.
  const token = res.sessionToken ? { sessionToken: res.sessionToken } : {};
  setSession(config, { user: res.user, ...token, chain, address: account });
  return res.user;
}

/** Signs out at the endpoint (clearing the cookie) and forgets the session. The wallet stays connected. */
export async function signOut(config: Config): Promise<void> {
  await config.client.signOut();
  clearSession(config);
}

/**
 * Asks the endpoint who is signed in (`GET /me`) and updates the session: null when the answer is 401.
 * Concurrent calls share one request.
 */
export async function fetchUser(config: Config): Promise<User | null> {
  if (config._meInFlight) return config._meInFlight as Promise<User | null>;
  config.store.setState({ sessionStatus: 'pending', sessionError: null });
  const run = (async () => {
    try {
      const user = await config.client.me();
      if (user) setSession(config, { ...(config.store.getState().session ?? {}), user });
      else {
        clearSession(config);
        config.store.setState({ sessionStatus: 'success' });
      }
      return user;
    } catch (err) {
      config.store.setState({ sessionStatus: 'error', sessionError: err as Error });
      throw err;
    } finally {
      config._meInFlight = undefined;
    }
  })();
  config._meInFlight = run;
  return run;
}

function requireUser(config: Config): User {
  const user = config.store.getState().session?.user;
  if (!user) throw new UserNotFoundError();
  return user;
}

function solanaConnector(config: Config, connector?: SolanaConnector): SolanaConnector {
  const found = connector ?? config.connectors.find((c): c is SolanaConnector => c.type === 'solana');
  if (!found) throw new ConfigError('No Solana connector configured (add phantom() to connectors)');
  return found;
}

/**
 * Links a Solana address to the signed-in user: connects the Solana wallet (trusted first), GETs a message,
 * signs it and POSTs it to `/link`. Returns the updated user.
 */
export async function linkSolana(config: Config, parameters: { connector?: SolanaConnector } = {}): Promise<User> {
  requireUser(config);
  const connector = solanaConnector(config, parameters.connector);
  const { accounts } = await connector.connect();
  const address = accounts[0];
  if (!address) throw new AddressNotFoundError();
  const { message } = await config.client.getMessage(address, 'solana');
  const signature = await connector.signMessage(message, address);
  if (!signature) throw new DataNotSignedError();
  const { user } = await config.client.link({ chain: 'solana', address, message, signature });
  setUser(config, user);
  return user;
}

/**
 * Unlinks a Solana address from the signed-in user (`POST /unlink`). Throws "Address not found" when the address
 * is not one of the user's `solAccounts`. Returns the updated user.
 */
export async function unlinkSolana(config: Config, parameters: { address: string }): Promise<User> {
  const current = requireUser(config);
  if (!parameters.address || !(current.solAccounts ?? []).includes(parameters.address)) {
    throw new AddressNotFoundError();
  }
  const { user } = await config.client.unlink({ chain: 'solana', address: parameters.address });
  setUser(config, user);
  return user;
}
