#!/usr/bin/env python3
"""merge.py builds endpoints.json (the one reference file the web3api package embeds) from the two shared
reference files: the client's list of 56 endpoints and the published docs config (parameter types, examples,
response fields). Responses the docs config lacks are described below by hand, in the same field format.

    python3 web3api/internal/ref/merge.py /work/shared/reference > web3api/internal/ref/endpoints.json
    go generate ./web3api/...
"""
import json, re, sys

ref = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/reference"
eps = json.load(open(ref + "/web3api-endpoints.json"))
docs = json.load(open(ref + "/web3api-docs-config.json"))

by_route = {}
for g, v in docs.items():
    for n, e in v.items():
        by_route[(e.get("method"), e.get("path"))] = e


def F(name, typ, example=None, **kw):
    d = {"name": name, "type": typ, "example": example}
    d.update(kw)
    return d


def obj(*fields):
    return {"type": "object", "fields": list(fields)}


def arr(*fields):
    return {"type": "array", "field": {"type": "object", "fields": list(fields)}}


A1 = "0x057ec652a4f150f7ff94f089a38008f49a0df88e"
TOK = "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2"
HASH = "0x057ec652a4f150f7ff94f089a38008f49a0df88e1ed85b3757a6d31d01a4d667"

erc20_meta = [F("address", "string", TOK), F("name", "string", "Kylin Network"), F("symbol", "string", "KYL"),
              F("decimals", "string", "18"), F("logo", "string", None), F("logo_hash", "string", None),
              F("thumbnail", "string", None), F("block_number", "string", None), F("validated", "number", 1),
              F("created_at", "string", "2022-01-20T10:39:55.818Z")]
erc20_transfer_v = [F("token_name", "string", "Tether USD"), F("token_symbol", "string", "USDT"),
                    F("token_logo", "string", None), F("token_decimals", "string", "6"),
                    F("contract_address", "string", TOK), F("transaction_hash", "string", HASH),
                    F("log_index", "number", 12), F("block_timestamp", "string", "2021-04-02T10:07:54.000Z"),
                    F("block_number", "number", 12526958), F("block_hash", "string", HASH),
                    F("from_wallet", "string", A1), F("to_wallet", "string", A1),
                    F("value", "string", "650000000000000000"), F("value_decimal", "string", "0.65"),
                    F("possible_spam", "boolean", False)]
market_token = [F("rank", "number", 1), F("token_name", "string", "Tether USD"), F("token_symbol", "string", "USDT"),
                 F("token_logo", "string", None), F("token_decimals", "string", "6"),
                 F("contract_address", "string", TOK), F("price_usd", "string", "1.0001"),
                 F("price_24h_percent_change", "string", "0.02"), F("price_7d_percent_change", "string", "0.01"),
                 F("market_cap_usd", "string", "83100000000")]
market_nft = [F("rank", "number", 1), F("collection_title", "string", "CryptoPunks"),
              F("collection_image", "string", "https://example.com/punks.png"),
              F("floor_price_usd", "string", "100000.00"), F("floor_price_24hr_percent_change", "string", "1.2"),
              F("market_cap_usd", "string", "1000000000"), F("market_cap_24hr_percent_change", "string", "0.5"),
              F("volume_usd", "string", "5000000"), F("volume_24hr_percent_change", "string", "3.1"),
              F("collection_address", "string", TOK)]

EXTRA = {
    "getInternalTransactions": arr(F("transaction_hash", "string", HASH), F("block_number", "string", "12526958"),
                                   F("block_hash", "string", HASH), F("type", "string", "CALL"),
                                   F("from", "string", A1), F("to", "string", A1), F("value", "string", "650000000000000000"),
                                   F("gas", "string", "6721975"), F("gas_used", "string", "6721975"),
                                   F("input", "string", "0x"), F("output", "string", "0x")),
    "runContractFunction": {"type": "json", "example": "1000000000000000000"},
    "getTokenBalances": arr(F("token_address", "string", TOK), F("name", "string", "Kylin Network"),
                            F("symbol", "string", "KYL"), F("logo", "string", None), F("thumbnail", "string", None),
                            F("decimals", "number", 18), F("balance", "string", "123456789"),
                            F("possible_spam", "boolean", False)),
    "getTokenMetadata": arr(*erc20_meta),
    "getTokenMetadataBySymbol": arr(*erc20_meta),
    "getErc20Transfers": obj(F("cursor", "string", None), F("result", "array", None, field={"type": "object", "fields": erc20_transfer_v})),
    "getErc20Mints": obj(F("cursor", "string", None), F("result", "array", None, field={"type": "object", "fields": [x for x in erc20_transfer_v if x["name"] != "from_wallet"]})),
    "getErc20Burns": obj(F("cursor", "string", None), F("result", "array", None, field={"type": "object", "fields": [x for x in erc20_transfer_v if x["name"] != "to_wallet"]})),
    "getErc20Approvals": obj(F("cursor", "string", None), F("result", "array", None, field={"type": "object", "fields": [x for x in erc20_transfer_v if x["name"] not in ("from_wallet", "to_wallet")] + [F("owner_address", "string", A1), F("spender_address", "string", A1)]})),
    "syncNFTContract": obj(F("message", "string", "Request Initiated")),
    "reviewContracts": obj(F("message", "string", "Submission successful")),
    "getPairReserves": obj(F("reserve0", "string", "232416936901978959300355"), F("reserve1", "string", "698885607196"),
                           F("block_number", "string", "12526958"), F("block_timestamp", "string", "1622210415")),
    "uploadFolder": arr(F("path", "string", "https://ipfs.moralis.io:2053/ipfs/QmPQ3YJ3hgF3W3v2eR8vyHbmFMXgUC5SLtUhcGwdZfRf7C/moralis/logo.jpg")),
    "endpointWeights": arr(F("endpoint", "string", "getBlock"), F("path", "string", "/block/{block_number_or_hash}"),
                           F("price", "number", 5), F("rateLimitCost", "number", 5)),
    "getTopERC20TokensByMarketCap": {"type": "array", "field": {"type": "object", "fields": market_token}},
    "getTopERC20TokensByPriceMovers": obj(F("gainers", "array", None, field={"type": "object", "fields": market_token}),
                                          F("losers", "array", None, field={"type": "object", "fields": market_token})),
    "getTopNFTCollectionsByMarketCap": {"type": "array", "field": {"type": "object", "fields": market_nft}},
    "getHottestNFTCollectionsByTradingVolume": {"type": "array", "field": {"type": "object", "fields": market_nft}},
}
SAME = {  # endpoint -> (endpoint whose response it shares, how)
    "getNFTsForContract": ("getNFTs", "same"),
    "resolveENSDomain": ("resolveDomain", "same"),
    "getMultipleTokenPrices": ("getTokenPrice", "array"),
    "getTransactionVerbose": ("getTransactionsVerbose", "item"),
}
# Fields the docs config types as "object" although the API sends an array of objects.
ARRAY_OBJECTS = {"result", "transactions", "logs", "internal_transactions"}

NUMBER_PARAMS = {"limit", "from_block", "to_block", "offset", "days", "block_number", "totalRanges", "range"}
BOOL_PARAMS = {"disable_total", "normalizeMetadata", "media_items"}
ARRAY_PARAMS = {"addresses", "symbols", "token_addresses", "wallet_addresses", "contract_addresses",
                "exclude_contracts", "exclude_wallets"}


def fix(fields):
    out = []
    for f in fields:
        f = dict(f)
        f.pop("description", None)
        if f["type"] == "object" and f["name"] in ARRAY_OBJECTS and "fields" in f:
            f = {"name": f["name"], "type": "array", "example": None,
                 "field": {"type": "object", "fields": fix(f["fields"])}}
        elif "fields" in f:
            f["fields"] = fix(f["fields"])
        if isinstance(f.get("field"), dict) and "fields" in f["field"]:
            f["field"] = {"type": "object", "fields": fix(f["field"]["fields"])}
        out.append(f)
    return out


def response_of(de):
    if not de:
        return None
    for r in de.get("responses", []):
        if r["status"].startswith("2") and r.get("body"):
            b = r["body"]
            if b["type"] == "array":
                return {"type": "array", "field": {"type": "object", "fields": fix(b["field"]["fields"])}}
            return {"type": "object", "fields": fix(b.get("fields", []))}
    return None


def param_type(name, de):
    if de:
        for p in de.get("pathParams", []) + de.get("queryParams", []):
            if p["name"] == name:
                t = p.get("type", "string")
                return {"number": "number", "integer": "number", "boolean": "boolean", "array": "array"}.get(t, "string"), p.get("example"), p.get("enum"), p.get("description", "")
    if name in NUMBER_PARAMS:
        return "number", None, None, ""
    if name in BOOL_PARAMS:
        return "boolean", None, None, ""
    if name in ARRAY_PARAMS:
        return "array", None, None, ""
    return "string", None, None, ""


out = []
resp = {}
for e in eps:
    de = by_route.get((e["method"], e["path"]))
    r = EXTRA.get(e["name"]) or response_of(de)
    resp[e["name"]] = r
for name, (other, how) in SAME.items():
    base = resp[other]
    if how == "same":
        resp[name] = base
    elif how == "array":
        resp[name] = {"type": "array", "field": base}
    elif how == "item":
        item = [f for f in base["fields"] if f["name"] == "result"][0]["field"]
        resp[name] = item
for e in eps:
    de = by_route.get((e["method"], e["path"]))
    params = []
    for kind, names in (("path", e["pathParams"]), ("query", e["queryParams"])):
        for n in names:
            t, ex, enum, desc = param_type(n, de)
            p = {"name": n, "in": kind, "type": t, "required": n in e["required"]}
            if desc:
                p["description"] = " ".join(desc.split())
            if ex is not None:
                p["example"] = ex
            if enum and n != "chain":
                p["enum"] = enum
            params.append(p)
    for bp in e["bodyParamTypes"]:
        n, how = bp.split(":")
        params.append({"name": n, "in": "body", "type": "json", "required": n in e["required"],
                       "wholeBody": how == "set body"})
    if resp[e["name"]] is None:
        raise SystemExit("no response for " + e["name"])
    m = re.match(r'schemas\["(\w+)"\]', e["response"])
    out.append({"group": e["group"], "name": e["name"], "method": e["method"], "path": e["path"],
                "schema": m.group(1) if m else "",
                "docsName": next((n for g, v in docs.items() for n, x in v.items() if x is de), ""),
                "params": params, "response": resp[e["name"]]})
json.dump(out, sys.stdout, indent=1)
sys.stdout.write("\n")
