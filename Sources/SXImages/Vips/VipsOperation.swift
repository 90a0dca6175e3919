import CVips
import SXCore

// Swift cannot call C variadic functions, and nearly all of libvips' convenience API
// (vips_jpegsave_buffer(in, &buf, &len, "Q", 85, NULL), ...) is variadic. This file calls any
// libvips operation by name the way the language bindings do, through GObject introspection:
//
//   vips_operation_new(name) → g_object_set_property per input (GValue typed from the argument's
//   GParamSpec) → vips_cache_operation_build → g_object_get_property per output →
//   vips_object_unref_outputs + g_object_unref.
//
// Nothing here is variadic, and every libvips reference taken is released on every path.

// MARK: - Errors

/// A libvips call that failed, naming the operation and carrying libvips' own message.
public struct VipsError: SXError, Equatable {
    /// The operation's nickname ("jpegsave_buffer"), or what was being attempted.
    public let operation: String
    /// libvips' error text for this call (see `VipsErrorLog`), or ours when the mistake was caught on the Swift side.
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "libvips operation '\(operation)' failed: \(message)" }

    /// libvips' text for the failure that just happened in this call, about `subject` (the file the
    /// call read, if any). The buffer is shared by all threads; `VipsErrorLog` sorts out whose text is whose.
    static func fromLibvips(_ operation: String, subject: String? = nil, fallback: String = "unknown libvips error") -> VipsError {
        let lines = VipsErrorLog.claim(subject: subject)
        // One line per libvips message; joined so the description stays a single line.
        let text = lines.isEmpty ? fallback : lines.joined(separator: "; ")
        // libvips itself clears the shared buffer in places (format sniffing on another thread), so
        // the line naming the file can be gone by the time it is read: the file is named here then.
        guard let subject, !lines.contains(where: { $0.contains(subject) }) else {
            return VipsError(operation: operation, message: text)
        }
        return VipsError(operation: operation, message: "\"\(subject)\": \(text)")
    }
}

// MARK: - Images

/// A libvips image (one GObject reference, released in `deinit`).
///
/// Deliberately not `Sendable`: libvips images are immutable once built and GObject reference
/// counting is atomic, so sharing across threads would very likely be fine, but nothing in this
/// package needs it yet and the compiler cannot check the claim. Build and use an image in one task.
public final class VipsImage {
    /// The C image. This wrapper owns exactly one reference to it.
    let pointer: UnsafeMutablePointer<CVips.VipsImage>

    /// Takes over one reference the caller already owns.
    init(owning pointer: UnsafeMutablePointer<CVips.VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    /// True when the last band is alpha (e.g. 2-band grey + alpha, 4-band sRGB + alpha).
    public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
}

// MARK: - Argument values

/// A value passed to, or read back from, a libvips operation argument.
///
/// Inputs are converted to the argument's declared GType: `.int` also fills `gdouble`, enum and
/// flags arguments; `.string` also names an enum/flags value by its nickname ("srgb", "uchar");
/// a single `.int`/`.double` fills a `VipsArrayDouble`; a single `.image` fills a `VipsArrayImage`.
public enum VipsValue {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case string(String)
    case image(VipsImage)
    /// A `VipsBlob` (encoded file bytes in and out).
    case bytes([UInt8])
    /// A `VipsArrayDouble`.
    case doubles([Double])
    /// A `VipsArrayImage`.
    case images([VipsImage])
}

extension VipsValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByStringLiteral
{
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}

/// The outputs of one operation call, by argument name.
public struct VipsOutputs {
    /// The operation these came from, for error messages.
    public let operation: String
    public let values: [String: VipsValue]

    public subscript(name: String) -> VipsValue? { values[name] }

    public func image(_ name: String = "out") throws -> VipsImage {
        if case .image(let image)? = values[name] { return image }
        throw mismatch(name, "an image")
    }

    public func bytes(_ name: String = "buffer") throws -> [UInt8] {
        if case .bytes(let bytes)? = values[name] { return bytes }
        throw mismatch(name, "a byte buffer")
    }

    public func int(_ name: String) throws -> Int {
        if case .int(let value)? = values[name] { return value }
        throw mismatch(name, "an integer")
    }

    public func double(_ name: String) throws -> Double {
        switch values[name] {
        case .double(let value)?: return value
        case .int(let value)?: return Double(value)
        default: throw mismatch(name, "a number")
        }
    }

    private func mismatch(_ name: String, _ expected: String) -> VipsError {
        VipsError(operation: operation, message: "output '\(name)' is not \(expected)")
    }
}

// MARK: - Calling operations

/// Calls libvips operations by name, without variadic C functions.
public enum Vips {
    /// Runs operation `name` ("linear", "jpegsave_buffer", …) with `inputs`, and returns every
    /// required output plus any optional outputs named in `optionalOutputs`.
    ///
    ///     let out = try Vips.call("linear", ["in": .image(x), "a": .doubles([2]), "b": 0.5])
    ///     let scaled = try out.image()
    public static func call(
        _ name: String,
        _ inputs: KeyValuePairs<String, VipsValue> = [:],
        optionalOutputs: [String] = []
    ) throws -> VipsOutputs {
        guard VipsRuntime.started else {
            throw VipsError.fromLibvips(name, fallback: "libvips could not be started (vips_init failed)")
        }
        guard let created = vips_operation_new(name) ?? operationFromOptionalModules(name) else {
            throw VipsError.fromLibvips(name)
        }
        var operation = created
        do {
            for (argument, value) in inputs {
                try setInput(argument, value, on: operation, operationName: name)
            }
        } catch {
            vips_object_unref_outputs(object(operation))
            g_object_unref(UnsafeMutableRawPointer(operation))
            throw error
        }

        // Returns a new reference to either `operation` or an equal cached one that already ran.
        guard let built = vips_cache_operation_build(operation) else {
            let failure = VipsError.fromLibvips(name, subject: subject(of: inputs))
            vips_object_unref_outputs(object(operation))
            g_object_unref(UnsafeMutableRawPointer(operation))
            throw failure
        }
        g_object_unref(UnsafeMutableRawPointer(operation))
        operation = built
        defer {
            vips_object_unref_outputs(object(operation))
            g_object_unref(UnsafeMutableRawPointer(operation))
        }

        var values: [String: VipsValue] = [:]
        for output in requiredOutputs(of: operation) + optionalOutputs where values[output] == nil {
            values[output] = try getOutput(output, from: operation, operationName: name)
        }
        return VipsOutputs(operation: name, values: values)
    }

    /// Runs an operation whose result is the image output `out`.
    public static func image(_ name: String, _ inputs: KeyValuePairs<String, VipsValue> = [:]) throws -> VipsImage {
        try call(name, inputs).image("out")
    }

    /// An operation that is not built in (heifsave_buffer, jxlload…) may come with an optional module.
    private static func operationFromOptionalModules(_ name: String) -> UnsafeMutablePointer<CVips.VipsOperation>? {
        guard VipsRuntime.loadOptionalModules() else { return nil }
        VipsErrorLog.discard()  // "class not found" from the first try
        return vips_operation_new(name)
    }

    /// Opens encoded image bytes with whichever loader recognises them, reading only the header
    /// (libvips decodes pixels lazily). `format` is the loader's short name: "jpeg", "png", "webp", ….
    public static func load(_ bytes: [UInt8]) throws -> (image: VipsImage, format: String) {
        guard VipsRuntime.started else {
            throw VipsError.fromLibvips("load", fallback: "libvips could not be started (vips_init failed)")
        }
        let find = { bytes.withUnsafeBytes { raw in vips_foreign_find_load_buffer(raw.baseAddress, raw.count) } }
        var found: UnsafePointer<CChar>? = find()
        if found == nil, VipsRuntime.loadOptionalModules() {
            VipsErrorLog.discard()
            found = find()
        }
        guard let found else {
            throw VipsError.fromLibvips("load from buffer", fallback: "buffer is not in a known image format")
        }
        let loader = String(cString: found)  // a class name, e.g. "VipsForeignLoadJpegBuffer"
        let nickname = vips_nickname_find(g_type_from_name(loader)).map { String(cString: $0) } ?? loader
        var format = nickname
        for suffix in ["load_buffer", "load_source", "load"] where format.hasSuffix(suffix) {
            format.removeLast(suffix.count)
            break
        }
        let image = try call(nickname, ["buffer": .bytes(bytes)]).image("out")
        return (image, format)
    }

    /// The file a call reads, which libvips names in its messages.
    private static func subject(of inputs: KeyValuePairs<String, VipsValue>) -> String? {
        for (argument, value) in inputs where argument == "filename" {
            if case .string(let path) = value { return path }
        }
        return nil
    }

    // MARK: Inputs

    private static func setInput(
        _ argument: String, _ value: VipsValue,
        on operation: UnsafeMutablePointer<CVips.VipsOperation>, operationName: String
    ) throws {
        let (pspec, flags) = try describe(argument, of: operation, operationName: operationName)
        guard flags & VIPS_ARGUMENT_INPUT.rawValue != 0 else {
            throw VipsError(operation: operationName, message: "'\(argument)' is not an input argument")
        }
        var gvalue = GValue()
        try fill(&gvalue, type: pspec.pointee.value_type, with: value, argument: argument, operationName: operationName)
        defer { g_value_unset(&gvalue) }
        // Range / validity check up front: g_object_set_property would only print a GLib warning.
        if g_param_value_validate(pspec, &gvalue) != 0 {
            throw VipsError(operation: operationName, message: "value \(value.summary) is out of range for '\(argument)'")
        }
        g_object_set_property(gobject(operation), argument, &gvalue)
    }

    /// Initialises `gvalue` to `type` and stores `value` in it, converting where that is lossless.
    private static func fill(
        _ gvalue: inout GValue, type: GType, with value: VipsValue, argument: String, operationName: String
    ) throws {
        func wrong() -> VipsError {
            VipsError(
                operation: operationName,
                message: "argument '\(argument)' expects \(typeName(type)), got \(value.summary)")
        }
        let fundamental = g_type_fundamental(type)

        if type == GTypes.int {
            let number: Int
            switch value {
            case .int(let int): number = int
            case .double(let double) where double.rounded() == double && abs(double) < 1e15: number = Int(double)
            default: throw wrong()
            }
            guard let int32 = Int32(exactly: number) else { throw wrong() }
            g_value_init(&gvalue, type)
            g_value_set_int(&gvalue, int32)
        } else if type == GTypes.double {
            let number: Double
            switch value {
            case .double(let double): number = double
            case .int(let int): number = Double(int)
            default: throw wrong()
            }
            g_value_init(&gvalue, type)
            g_value_set_double(&gvalue, number)
        } else if type == GTypes.bool {
            guard case .bool(let flag) = value else { throw wrong() }
            g_value_init(&gvalue, type)
            g_value_set_boolean(&gvalue, flag ? 1 : 0)
        } else if type == GTypes.string {
            guard case .string(let string) = value else { throw wrong() }
            g_value_init(&gvalue, type)
            // A file name goes in as its bytes on disk (libvips opens it with g_open, bytes as given).
            FileNameBytes.withPath(string) { g_value_set_string(&gvalue, $0) }
        } else if g_type_is_a(type, vips_image_get_type()) != 0 {
            guard case .image(let image) = value else { throw wrong() }
            g_value_init(&gvalue, type)
            g_value_set_object(&gvalue, UnsafeMutableRawPointer(image.pointer))  // takes its own reference
        } else if type == vips_blob_get_type() {
            guard case .bytes(let bytes) = value else { throw wrong() }
            let blob: UnsafeMutablePointer<VipsBlob>? = bytes.withUnsafeBytes { raw in
                vips_blob_copy(raw.baseAddress, raw.count)  // libvips-owned copy: loaders read it lazily
            }
            guard let blob else { throw VipsError.fromLibvips(operationName, fallback: "cannot copy \(bytes.count) bytes") }
            g_value_init(&gvalue, type)
            g_value_set_boxed(&gvalue, UnsafeRawPointer(blob))  // takes its own reference
            vips_area_unref(area(blob))
        } else if type == vips_array_double_get_type() {
            var numbers: [Double]
            switch value {
            case .doubles(let doubles): numbers = doubles
            case .double(let double): numbers = [double]
            case .int(let int): numbers = [Double(int)]
            default: throw wrong()
            }
            guard let count = Int32(exactly: numbers.count) else { throw wrong() }
            g_value_init(&gvalue, type)
            numbers.withUnsafeMutableBufferPointer { buffer in
                vips_value_set_array_double(&gvalue, buffer.baseAddress, count)  // copies
            }
        } else if type == vips_array_image_get_type() {
            let images: [VipsImage]
            switch value {
            case .images(let list): images = list
            case .image(let image): images = [image]
            default: throw wrong()
            }
            guard let count = Int32(exactly: images.count) else { throw wrong() }
            g_value_init(&gvalue, type)
            vips_value_set_array_image(&gvalue, count)
            var length: Int32 = 0
            if let slots = vips_value_get_array_image(&gvalue, &length) {
                // The array's free function unrefs each element, so each slot holds its own reference.
                for (index, image) in images.enumerated() where index < Int(length) {
                    g_object_ref(UnsafeMutableRawPointer(image.pointer))
                    slots[index] = image.pointer
                }
            }
        } else if fundamental == GTypes.enumeration || fundamental == GTypes.flags {
            let isEnum = fundamental == GTypes.enumeration
            let number: Int32
            switch value {
            case .int(let int):
                guard let int32 = Int32(exactly: int) else { throw wrong() }
                number = int32
            case .string(let nick):
                let parsed = isEnum
                    ? vips_enum_from_nick(operationName, type, nick)
                    : vips_flags_from_nick(operationName, type, nick)
                guard parsed >= 0 else { throw VipsError.fromLibvips(operationName) }
                number = parsed
            default: throw wrong()
            }
            g_value_init(&gvalue, type)
            if isEnum {
                g_value_set_enum(&gvalue, number)
            } else {
                g_value_set_flags(&gvalue, UInt32(bitPattern: number))
            }
        } else {
            throw VipsError(
                operation: operationName,
                message: "argument '\(argument)' has type \(typeName(type)), which this wrapper does not support")
        }
    }

    // MARK: Outputs

    private static func requiredOutputs(of operation: UnsafeMutablePointer<CVips.VipsOperation>) -> [String] {
        var names: UnsafeMutablePointer<UnsafePointer<CChar>?>? = nil
        var flags: UnsafeMutablePointer<Int32>? = nil
        var count: Int32 = 0
        // The arrays belong to the operation's class; they are not freed here.
        guard vips_object_get_args(object(operation), &names, &flags, &count) == 0, let names, let flags else {
            VipsErrorLog.discard()
            return []
        }
        let wanted = VIPS_ARGUMENT_OUTPUT.rawValue | VIPS_ARGUMENT_REQUIRED.rawValue
        var result: [String] = []
        for index in 0..<Int(count) {
            let flag = UInt32(bitPattern: flags[index])
            guard flag & wanted == wanted, flag & VIPS_ARGUMENT_DEPRECATED.rawValue == 0,
                let name = names[index]
            else { continue }
            result.append(String(cString: name))
        }
        return result
    }

    private static func getOutput(
        _ argument: String, from operation: UnsafeMutablePointer<CVips.VipsOperation>, operationName: String
    ) throws -> VipsValue {
        let (pspec, flags) = try describe(argument, of: operation, operationName: operationName)
        guard flags & VIPS_ARGUMENT_OUTPUT.rawValue != 0 else {
            throw VipsError(operation: operationName, message: "'\(argument)' is not an output argument")
        }
        let type = pspec.pointee.value_type
        var gvalue = GValue()
        g_value_init(&gvalue, type)
        defer { g_value_unset(&gvalue) }
        g_object_get_property(gobject(operation), argument, &gvalue)
        let fundamental = g_type_fundamental(type)

        if type == GTypes.int {
            return .int(Int(g_value_get_int(&gvalue)))
        } else if type == GTypes.double {
            return .double(g_value_get_double(&gvalue))
        } else if type == GTypes.bool {
            return .bool(g_value_get_boolean(&gvalue) != 0)
        } else if type == GTypes.string {
            return .string(g_value_get_string(&gvalue).map { String(cString: $0) } ?? "")
        } else if g_type_is_a(type, vips_image_get_type()) != 0 {
            guard let raw = g_value_get_object(&gvalue) else {
                throw VipsError(operation: operationName, message: "output '\(argument)' was not set")
            }
            g_object_ref(raw)  // the GValue's reference goes away with g_value_unset
            return .image(VipsImage(owning: raw.assumingMemoryBound(to: CVips.VipsImage.self)))
        } else if type == vips_blob_get_type() {
            guard let raw = g_value_get_boxed(&gvalue) else {
                throw VipsError(operation: operationName, message: "output '\(argument)' was not set")
            }
            var length = 0
            let blob = UnsafeMutablePointer<VipsBlob>(OpaquePointer(raw))
            guard let data = vips_blob_get(blob, &length), length > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: data, count: length)))
        } else if type == vips_array_double_get_type() {
            var count: Int32 = 0
            guard let numbers = vips_value_get_array_double(&gvalue, &count) else { return .doubles([]) }
            return .doubles(Array(UnsafeBufferPointer(start: numbers, count: Int(count))))
        } else if fundamental == GTypes.enumeration {
            return .int(Int(g_value_get_enum(&gvalue)))
        } else if fundamental == GTypes.flags {
            return .int(Int(g_value_get_flags(&gvalue)))
        }
        throw VipsError(
            operation: operationName,
            message: "output '\(argument)' has type \(typeName(type)), which this wrapper does not support")
    }

    // MARK: Helpers

    private static func describe(
        _ argument: String, of operation: UnsafeMutablePointer<CVips.VipsOperation>, operationName: String
    ) throws -> (UnsafeMutablePointer<GParamSpec>, UInt32) {
        var pspec: UnsafeMutablePointer<GParamSpec>? = nil
        var argumentClass: UnsafeMutablePointer<VipsArgumentClass>? = nil
        var argumentInstance: UnsafeMutablePointer<VipsArgumentInstance>? = nil
        guard vips_object_get_argument(object(operation), argument, &pspec, &argumentClass, &argumentInstance) == 0,
            let pspec, let argumentClass
        else {
            throw VipsError.fromLibvips(operationName, fallback: "no argument named '\(argument)'")
        }
        return (pspec, argumentClass.pointee.flags.rawValue)
    }

    private static func typeName(_ type: GType) -> String {
        g_type_name(type).map { String(cString: $0) } ?? "GType \(type)"
    }

    private static func object(_ operation: UnsafeMutablePointer<CVips.VipsOperation>) -> UnsafeMutablePointer<VipsObject> {
        UnsafeMutablePointer<VipsObject>(OpaquePointer(operation))
    }

    private static func gobject(_ operation: UnsafeMutablePointer<CVips.VipsOperation>) -> UnsafeMutablePointer<GObject> {
        UnsafeMutablePointer<GObject>(OpaquePointer(operation))
    }

    private static func area(_ blob: UnsafeMutablePointer<VipsBlob>) -> UnsafeMutablePointer<VipsArea> {
        UnsafeMutablePointer<VipsArea>(OpaquePointer(blob))
    }
}

/// GLib's fundamental type ids. G_TYPE_INT and friends are C macros Swift does not import, so they
/// are looked up by their registered names (after libvips, and with it GObject, has started).
private enum GTypes {
    static let int = lookup("gint")
    static let double = lookup("gdouble")
    static let bool = lookup("gboolean")
    static let string = lookup("gchararray")
    static let enumeration = lookup("GEnum")
    static let flags = lookup("GFlags")

    private static func lookup(_ name: String) -> GType {
        _ = VipsRuntime.started
        return g_type_from_name(name)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension VipsValue {
    /// A short rendering for error messages (never dumps whole buffers).
    var summary: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .image(let image): return "image \(image.width)x\(image.height)x\(image.bands)"
        case .bytes(let bytes): return "\(bytes.count) bytes"
        case .doubles(let values): return "[" + values.map { String($0) }.joined(separator: ", ") + "]"
        case .images(let images): return "\(images.count) images"
        }
    }
}
