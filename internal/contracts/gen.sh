#!/usr/bin/env bash
# gen.sh regenerates the contract artifacts in ./artifacts from the published
# @openzeppelin/contracts npm package. Only the ABI and the creation bytecode are
# kept, so the committed files stay small. Needs node and npm (registry access).
#
#   internal/contracts/gen.sh            # uses the pinned version below
#   OZ_VERSION=4.9.6 internal/contracts/gen.sh
set -euo pipefail

OZ_VERSION="${OZ_VERSION:-4.9.6}"
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/artifacts"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
npm pack --silent "@openzeppelin/contracts@${OZ_VERSION}" >/dev/null
tar xzf openzeppelin-contracts-"${OZ_VERSION}".tgz
mkdir -p "$out"

for name in ERC20PresetMinterPauser ERC721PresetMinterPauserAutoId ERC1155PresetMinterPauser; do
  OZ_VERSION="$OZ_VERSION" node -e '
    const fs = require("fs");
    const [src, dst] = process.argv.slice(1);
    const a = JSON.parse(fs.readFileSync(src, "utf8"));
    if (!a.bytecode || a.bytecode.length < 4) { throw new Error(src + ": no bytecode"); }
    const slim = {
      contractName: a.contractName,
      source: "@openzeppelin/contracts@" + process.env.OZ_VERSION + "/" + a.sourceName,
      abi: a.abi,
      bytecode: a.bytecode,
    };
    fs.writeFileSync(dst, JSON.stringify(slim) + "\n");
  ' "package/build/contracts/${name}.json" "$out/${name}.json"
  echo "wrote $out/${name}.json"
done
