import { TypedDataEncoder, getAddress, verifyTypedData as recoverTypedData, type TypedDataDomain, type TypedDataField } from 'ethers';
import { DataNotSignedError, MoralisError, Web3NotEnabledError, type MoralisErrorOptions } from '../../errors/index.js';
import type { Config } from '../config.js';
import { walletRequest } from '../connectors/shared.js';
import { assertChain } from './wallet.js';

/** An EIP-712 document that ethers (and so this package) refuses to hash: the reason is ethers' own. */
export class InvalidTypedDataError extends MoralisError {
  override name = 'InvalidTypedDataError' as const;
  constructor(message: string, options: MoralisErrorOptions = {}) {
    super(`Invalid typed data: ${message}`, options);
  }
}

/** An EIP-712 document, as `eth_signTypedData_v4` takes it. */
export interface TypedDataDefinition {
  domain: TypedDataDomain;
  /** The struct types. `EIP712Domain` may be left out (it is derived from `domain`); if given it must match it. */
  types: Record<string, TypedDataField[]>;
  /** The struct type of `message`; it must be the one type no other type refers to, as ethers requires. */
  primaryType: string;
  message: Record<string, unknown>;
}

/** Parameters of `signTypedData`. */
export interface SignTypedDataParameters extends TypedDataDefinition {
  /** The chain the wallet must be on (chain guard); default: one of the config's `chains`, or any. */
  chainId?: number;
}

/** What `signTypedData` gives: the wallet's signature, the EIP-712 digest it signs and the signing account. */
export interface SignTypedDataResult {
  signature: string;
  /** keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)): what the Go SDK's signer.TypedDataHash gives. */
  hash: string;
  /** The connected account (lower-cased) that was asked to sign. */
  address: string;
}

/** The document checked and hashed by ethers, and the JSON payload a wallet takes. */
function prepare(definition: TypedDataDefinition): { hash: string; payload: string; types: Record<string, TypedDataField[]> } {
  const { domain, types: allTypes, primaryType, message } = definition ?? ({} as TypedDataDefinition);
  try {
    if (allTypes === null || typeof allTypes !== 'object') throw new Error('types must be an object');
    const { EIP712Domain: declared, ...types } = allTypes;
    const inferred = TypedDataEncoder.getPrimaryType(types);
    if (inferred !== primaryType) throw new Error(`primaryType is ${String(primaryType)}, the types make it ${inferred}`);
    const payload = TypedDataEncoder.getPayload(domain, types, message);
    if (declared !== undefined) {
      const want = payload.types.EIP712Domain;
      const same =
        Array.isArray(declared) &&
        declared.length === want.length &&
        declared.every((f, i) => f?.name === want[i].name && f?.type === want[i].type);
      if (!same) throw new Error("EIP712Domain does not match the domain's fields");
    }
    return { hash: TypedDataEncoder.hash(domain, types, message), payload: JSON.stringify(payload), types };
  } catch (err) {
    if (err instanceof InvalidTypedDataError) throw err;
    const e = err as { shortMessage?: string; message?: string };
    throw new InvalidTypedDataError(e?.shortMessage ?? e?.message ?? String(err), { cause: err });
  }
}

/**
 * The EIP-712 digest of a document: ethers' `TypedDataEncoder.hash` (viem's `hashTypedData`), after the checks of
 * `signTypedData`. Throws InvalidTypedDataError for a document ethers refuses.
 */
export function hashTypedData(definition: TypedDataDefinition): string {
  return prepare(definition).hash;
}

/**
 * Has the connected EVM wallet sign EIP-712 typed data (`eth_signTypedData_v4`), as wagmi's `signTypedData`.
 *
 * - The document is checked and hashed with ethers first: one it refuses is InvalidTypedDataError and no wallet
 *   request is made.
 * - Web3NotEnabledError when no EVM wallet is connected; ChainMismatchError when the wallet is on another chain
 *   than `chainId` (or the config's `chains`); UserRejectedRequestError when the user refuses; DataNotSignedError
 *   for an empty answer.
 * - The signature is returned as the wallet gave it; it is not checked against the account here (a smart-contract
 *   account signs with other keys). Check it on the server (Go: auth.VerifyTypedData, which accepts ERC-1271 and
 *   ERC-6492 accounts too) or with `verifyTypedData` for plain accounts.
 */
export async function signTypedData(config: Config, parameters: SignTypedDataParameters): Promise<SignTypedDataResult> {
  const { connector, account } = config.store.getState().wallet;
  if (!connector || connector.type !== 'evm' || !account) throw new Web3NotEnabledError();
  const { hash, payload } = prepare(parameters);
  await assertChain(config, parameters.chainId);
  const signature = await walletRequest(await connector.getProvider(), 'eth_signTypedData_v4', [account, payload]);
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(signature)) throw new DataNotSignedError();
  return { signature, hash, address: account };
}

/** Parameters of `verifyTypedData`. */
export interface VerifyTypedDataParameters extends TypedDataDefinition {
  address: string;
  signature: string;
}

/**
 * Whether `signature` is an ECDSA signature of the document by `address` (a plain account: recovery, no network).
 * A malformed document is InvalidTypedDataError; a malformed signature or another signer gives false. This is a
 * convenience for the page; what the server grants must rest on the server's own check (Go: auth.VerifyTypedData,
 * which also accepts smart-contract accounts).
 */
export function verifyTypedData(parameters: VerifyTypedDataParameters): boolean {
  const { types } = prepare(parameters);
  let want: string;
  try {
    want = getAddress(parameters.address);
  } catch (err) {
    throw new InvalidTypedDataError('address is not a valid address', { cause: err });
  }
  try {
    return recoverTypedData(parameters.domain, types, parameters.message, parameters.signature) === want;
  } catch {
    return false;
  }
}
