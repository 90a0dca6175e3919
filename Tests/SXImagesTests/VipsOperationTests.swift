import SXImages
import Testing
import SXTestSupport

@Suite("Vips operations", .ownThreads)
struct VipsOperationTests {
    @Test func unknownOperationIsNamedInTheError() {
        do {
            _ = try Vips.call("no_such_operation_sx")
            Issue.record("expected an error")
        } catch let error as VipsError {
            #expect(error.operation == "no_such_operation_sx")
            #expect(error.description.contains("no_such_operation_sx"))
            #expect(error.exitStatus == .failed)
        } catch {
            Issue.record("unexpected error type: \(error)")
        }
    }

    @Test func unknownArgumentAndWrongTypesThrow() {
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 4, "height": 4, "nonsense": 1]) }
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": "four", "height": 4]) }
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 0, "height": 4]) }  // out of range
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 4]) }  // missing required input
        #expect(throws: VipsError.self) { _ = try Vips.image("cast", ["in": .image(try black()), "format": "nope"]) }
    }

    @Test func scalarArrayBlobAndEnumArgumentsRoundTrip() throws {
        let image = try Vips.image("linear", ["in": .image(try black()), "a": .doubles([1]), "b": .doubles([10, 20, 30])])
        #expect(image.bands == 3)
        let average = try Vips.call("avg", ["in": .image(image)]).double("out")
        #expect(abs(average - 20) < 1e-9)

        let grey = try Vips.image("cast", ["in": .image(image), "format": "uchar"])
        let encoded = try Vips.call("pngsave_buffer", ["in": .image(grey)]).bytes()
        let (decoded, format) = try Vips.load(encoded)
        #expect(format == "png")
        #expect(decoded.width == 8 && decoded.height == 5 && decoded.bands == 3)
    }

    private func black() throws -> VipsImage {
        try Vips.image("black", ["width": 8, "height": 5])
    }
}
