// pako's raw DEFLATE, over Node's zlib (pako is a port of it).
import zlib from "node:zlib"

export default {
  deflateRaw: (data) => new Uint8Array(zlib.deflateRawSync(data)),
  inflateRaw: (data) => new Uint8Array(zlib.inflateRawSync(data)),
}
