// The libsodium-wrappers-sumo calls xftp-web makes, over Node's own crypto (OpenSSL) and tweetnacl
// (Debian's node-tweetnacl): the npm registry cannot be reached here, and these are the same
// primitives. Only what xftp-web's src/ calls is here; anything else is a loud error.
import crypto from "node:crypto"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const nacl = require(process.env.TWEETNACL ?? "/usr/share/nodejs/tweetnacl/nacl-fast.js")

const u8 = (b) => new Uint8Array(b.buffer ? b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) : b)
const der = (hex, raw) => Buffer.concat([Buffer.from(hex, "hex"), Buffer.from(raw)])
// RFC 8410 wrappers: PKCS#8 private keys (seeds) and SubjectPublicKeyInfo public keys.
const ED25519_PKCS8 = "302e020100300506032b657004220420"
const ED25519_SPKI = "302a300506032b6570032100"
const X25519_PKCS8 = "302e020100300506032b656e04220420"
const X25519_SPKI = "302a300506032b656e032100"

const edPrivate = (seed) => crypto.createPrivateKey({ key: der(ED25519_PKCS8, seed), format: "der", type: "pkcs8" })
const edPublic = (pk) => crypto.createPublicKey({ key: der(ED25519_SPKI, pk), format: "der", type: "spki" })
const xPrivate = (sk) => crypto.createPrivateKey({ key: der(X25519_PKCS8, sk), format: "der", type: "pkcs8" })
const xPublic = (pk) => crypto.createPublicKey({ key: der(X25519_SPKI, pk), format: "der", type: "spki" })
const rawPublic = (keyObject) => u8(keyObject.export({ format: "der", type: "spki" }).subarray(12))

function seedKeypair(seed) {
  const publicKey = rawPublic(crypto.createPublicKey(edPrivate(seed)))
  const privateKey = new Uint8Array(64)
  privateKey.set(seed, 0)
  privateKey.set(publicKey, 32)
  return { publicKey, privateKey, keyType: "ed25519" }
}

const SIGMA = new Uint8Array(Buffer.from("expand 32-byte k", "latin1"))

const sodium = {
  ready: Promise.resolve(),
  crypto_hash_sha256: (m) => u8(crypto.createHash("sha256").update(m).digest()),
  crypto_hash_sha512: (m) => u8(crypto.createHash("sha512").update(m).digest()),
  crypto_hash_sha512_init: () => ({ hash: crypto.createHash("sha512") }),
  crypto_hash_sha512_update: (state, m) => { state.hash.update(m) },
  crypto_hash_sha512_final: (state) => u8(state.hash.digest()),
  crypto_sign_keypair: () => seedKeypair(crypto.randomBytes(32)),
  crypto_sign_seed_keypair: (seed) => {
    if (seed.length !== 32) throw new Error("crypto_sign_seed_keypair: seed must be 32 bytes")
    return seedKeypair(seed)
  },
  crypto_sign_detached: (m, sk) => u8(crypto.sign(null, m, edPrivate(sk.subarray(0, 32)))),
  crypto_sign_verify_detached: (sig, m, pk) => crypto.verify(null, m, edPublic(pk), sig),
  crypto_box_keypair: () => {
    const privateKey = u8(crypto.randomBytes(32))
    return { publicKey: rawPublic(crypto.createPublicKey(xPrivate(privateKey))), privateKey, keyType: "x25519" }
  },
  crypto_scalarmult_base: (sk) => rawPublic(crypto.createPublicKey(xPrivate(sk))),
  crypto_scalarmult: (sk, pk) => u8(crypto.diffieHellman({ privateKey: xPrivate(sk), publicKey: xPublic(pk) })),
  crypto_core_hsalsa20: (input, key, constant) => {
    const out = new Uint8Array(32)
    nacl.lowlevel.crypto_core_hsalsa20(out, input, key, constant ?? SIGMA)
    return out
  },
  // Poly1305 in one pass at the end (tweetnacl has no incremental API): the interop files are small.
  crypto_onetimeauth_init: (key) => ({ key: new Uint8Array(key), parts: [] }),
  crypto_onetimeauth_update: (state, m) => { state.parts.push(new Uint8Array(m)) },
  crypto_onetimeauth_final: (state) => {
    const m = new Uint8Array(Buffer.concat(state.parts))
    const out = new Uint8Array(16)
    nacl.lowlevel.crypto_onetimeauth(out, 0, m, 0, m.length, state.key)
    return out
  },
}

export default new Proxy(sodium, {
  get(target, name) {
    if (name in target) return target[name]
    if (name === "then") return undefined
    throw new Error(`libsodium shim: ${String(name)} is not provided (xftp-web started calling something new)`)
  },
})
