// Drives SimpleX's own XFTP client (xftp-web/src, bundled from a simplexmq checkout by ./run) in
// Node against an XFTP server, so that sxkit's server, descriptions and links are checked by
// SimpleX's code rather than by sxkit's. Output goes to files; xftp-web prints its own debug lines.
//
//   node driver.mjs upload FILE ADDRESS[,ADDRESS…] OUT_DIR  -> OUT_DIR/{recipient.yaml,sender.yaml,uri.txt}
//   node driver.mjs download DESCRIPTION OUT_FILE  (a YAML description, or a file holding a link)
//   node driver.mjs delete SENDER.yaml
//
// With XFTP_NATIVE_ALPN=xftp/1 (or http/1.1), the connection is the one SimpleX's native clients
// make (simplexmq `FileTransfer/Client.hs` 132-193): that ALPN, no SNI, a hello with no body, the
// server checked as the Haskell client checks it, then xftp-web's own commands over it. Without it,
// xftp-web connects as it does itself (SNI, h2, the web handshake). XFTP_NATIVE_WINDOW sets the
// native connection's HTTP/2 stream window.
import fs from "node:fs"
import path from "node:path"
import tls from "node:tls"
import http2 from "node:http2"
import crypto from "node:crypto"
import { once } from "node:events"
import {
  newXFTPAgent, closeXFTPAgent, encryptFileForUpload, uploadFile, downloadFile, deleteFile,
  decodeDescriptionURI,
} from "XFTP_WEB_SRC/agent.ts"
import { parseXFTPServer } from "XFTP_WEB_SRC/protocol/address.ts"
import { encodeFileDescription, decodeFileDescription, validateFileDescription } from "XFTP_WEB_SRC/protocol/description.ts"
import {
  decodeServerHandshake, encodeClientHandshake, compatibleVRange, chainIdCaCerts, extractSignedKey,
} from "XFTP_WEB_SRC/protocol/handshake.ts"
import { extractCertPublicKeyInfo } from "XFTP_WEB_SRC/crypto/identity.ts"
import { verify, verifyEd448, decodePubKeyEd25519, decodePubKeyEd448 } from "XFTP_WEB_SRC/crypto/keys.ts"

const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i])

// The native handshake, checked as simplexmq's Haskell client checks it (`xftpClientHandshakeV1`):
// the session id is this connection's tls-unique (Node's OpenSSL: the client's Finished); the TLS
// chain is [leaf, ca] and the CA's SHA-256 is the address's key hash; the server's X25519 key is
// signed by the leaf's key. Decoding and the signature check are xftp-web's.
async function nativeConnect(server, alpn) {
  const socket = tls.connect({ host: server.host, port: Number(server.port), ALPNProtocols: [alpn], servername: "", rejectUnauthorized: false })
  await once(socket, "secureConnect")
  try {
    return await nativeHandshake(server, socket, alpn)
  } catch (e) {
    socket.destroy()
    throw e
  }
}

async function nativeHandshake(server, socket, alpn) {
  if (socket.alpnProtocol !== alpn) throw new Error(`the server chose ALPN ${socket.alpnProtocol || "none"}, not ${alpn}`)
  const chain = []
  for (let c = socket.getPeerCertificate(true); c && c.raw; c = c.issuerCertificate === c ? null : c.issuerCertificate) chain.push(new Uint8Array(c.raw))
  const tlsUnique = new Uint8Array(socket.getFinished())
  // XFTP_NATIVE_WINDOW: a stream window smaller than an answer's block, so that answers wait for
  // this client's window updates.
  const window = Number(process.env.XFTP_NATIVE_WINDOW || 0)
  const session = http2.connect(`https://${server.host}:${server.port}`, { createConnection: () => socket, ...(window ? { settings: { initialWindowSize: window } } : {}) })
  session.on("error", () => {})
  const transport = {
    post: (body) => new Promise((resolve, reject) => {
      const req = session.request({ ":method": "POST", ":path": "/" })
      const parts = []
      let answer = null
      req.on("data", (b) => parts.push(b))
      req.on("end", () => { answer = new Uint8Array(Buffer.concat(parts)) })
      // As the Haskell client's HTTP/2 library takes it (http2 4.2.2, which simplexmq pins:
      // `Network/HTTP2/Arch/Receiver.hs` 454-475 and 85-88): a stream reset with any code but
      // NO_ERROR, even after a complete answer, fails the whole connection.
      req.on("close", () => {
        if (req.rstCode !== http2.constants.NGHTTP2_NO_ERROR) reject(new Error(`the server reset the stream with code ${req.rstCode}${answer ? " after its answer" : ""}`))
        else if (answer) resolve(answer)
        else reject(new Error("the stream closed before its answer ended"))
      })
      req.on("error", reject)
      req.end(body)
    }),
    close: () => session.close(),
  }
  const hs = decodeServerHandshake(await transport.post(new Uint8Array(0)))
  if (!equal(hs.sessionId, tlsUnique)) throw new Error("the session id is not the connection's tls-unique")
  if (chain.length !== 2) throw new Error(`the TLS chain has ${chain.length} certificate(s), not [leaf, ca]`)
  if (!equal(new Uint8Array(crypto.createHash("sha256").update(chain[1]).digest()), server.keyHash)) throw new Error("the CA is not the address's key hash")
  const ids = chainIdCaCerts(hs.certChainDer)
  if (ids.type !== "valid" || !equal(ids.leafCert, chain[0]) || !equal(ids.idCert, chain[1])) throw new Error("the handshake's chain is not the TLS chain")
  const spki = extractCertPublicKeyInfo(chain[0])
  const signed = extractSignedKey(hs.signedKeyDer)
  const ok = spki.length === 44 ? verify(decodePubKeyEd25519(spki), signed.signature, signed.objectDer)
    : verifyEd448(decodePubKeyEd448(spki), signed.signature, signed.objectDer)
  if (!ok) throw new Error("the server's session key is not signed by its certificate")
  const range = compatibleVRange(hs.xftpVersionRange, { minVersion: 1, maxVersion: 3 })
  if (!range) throw new Error("no common version")
  const ack = await transport.post(encodeClientHandshake({ xftpVersion: range.maxVersion, keyHash: server.keyHash }))
  if (ack.length !== 0) throw new Error("the client handshake was answered")
  return { baseUrl: `https://${server.host}:${server.port}`, sessionId: hs.sessionId, xftpVersion: range.maxVersion, transport }
}

function readDescription(file) {
  const text = fs.readFileSync(file, "utf8").trim()
  const hash = text.indexOf("#")
  if (text.startsWith("https://") || text.startsWith("http://")) return decodeDescriptionURI(text.slice(hash + 1))
  const fd = decodeFileDescription(text + "\n")
  const problem = validateFileDescription(fd)
  if (problem) throw new Error("invalid description: " + problem)
  return fd
}

const [command, ...args] = process.argv.slice(2)
const agent = newXFTPAgent()
const nativeALPN = process.env.XFTP_NATIVE_ALPN
if (nativeALPN) agent._connectFn = (server) => nativeConnect(server, nativeALPN)
try {
  if (command === "upload") {
    const [file, addresses, out] = args
    const encrypted = encryptFileForUpload(new Uint8Array(fs.readFileSync(file)), path.basename(file))
    const result = await uploadFile(agent, addresses.split(",").map(parseXFTPServer), encrypted)
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(path.join(out, "recipient.yaml"), encodeFileDescription(result.rcvDescription), { mode: 0o600 })
    fs.writeFileSync(path.join(out, "sender.yaml"), encodeFileDescription(result.sndDescription), { mode: 0o600 })
    fs.writeFileSync(path.join(out, "uri.txt"), result.uri + "\n")
  } else if (command === "download") {
    const [description, out] = args
    const { header, content } = await downloadFile(agent, readDescription(description))
    fs.writeFileSync(out, content)
    fs.writeFileSync(out + ".name", header.fileName)
  } else if (command === "delete") {
    await deleteFile(agent, readDescription(args[0]))
  } else {
    throw new Error("usage: driver.mjs upload|download|delete ...")
  }
} catch (e) {
  // One line the run script can show: the error's class, message and XFTP error type.
  console.error(`xftp-web failed: ${e?.name ?? "Error"}: ${e?.message ?? e}${e?.errorType ? ` (${e.errorType})` : ""}`)
  process.exitCode = 1
} finally {
  closeXFTPAgent(agent)
}
