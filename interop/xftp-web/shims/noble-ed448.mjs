// @noble/curves/ed448's verify, over Node's crypto (OpenSSL's Ed448).
import crypto from "node:crypto"

const ED448_SPKI = "3043300506032b6571033a00"

export const ed448 = {
  verify(sig, msg, publicKey) {
    const key = crypto.createPublicKey({ key: Buffer.concat([Buffer.from(ED448_SPKI, "hex"), Buffer.from(publicKey)]), format: "der", type: "spki" })
    return crypto.verify(null, msg, key, sig)
  },
}
