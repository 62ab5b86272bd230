import CEGL

/// An OpenGL ES 2 scene drawn without a window, as a game or a player would
/// draw it: an EGL context on Mesa's surfaceless platform (software
/// rendering, llvmpipe, where there is no GPU), a fragment shader drawing a
/// gradient and a moving disc into a framebuffer object, read back as RGBA.
final class GLScene {
    /// Why the scene could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let width: Int
    let height: Int
    private let display: EGLDisplay
    private let context: EGLContext
    private var program: GLuint = 0
    private var framebuffer: GLuint = 0
    private var texture: GLuint = 0
    private var vertices: GLuint = 0
    private var timeUniform: GLint = -1

    // The vertex shader flips y, so the rows glReadPixels returns (bottom
    // first) come out top row first, as PackedPicture reads them.
    private static let vertexShader = """
        attribute vec2 position;
        varying vec2 uv;
        void main() {
            uv = vec2(position.x * 0.5 + 0.5, 0.5 - position.y * 0.5);
            gl_Position = vec4(position.x, -position.y, 0.0, 1.0);
        }
        """
    private static let fragmentShader = """
        precision mediump float;
        varying vec2 uv;
        uniform float t;
        void main() {
            vec3 colour = vec3(uv.x, 0.25 + 0.5 * uv.y, 0.5 + 0.4 * sin(6.2831 * (uv.x + t)));
            vec2 centre = vec2(0.15 + 0.7 * fract(t), 0.5);
            vec2 d = (uv - centre) * vec2(16.0 / 9.0, 1.0);
            if (length(d) < 0.15) colour = vec3(1.0, 1.0, 0.9);
            gl_FragColor = vec4(colour, 1.0);
        }
        """

    /// Makes the context and the framebuffer of `width` × `height` pixels.
    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        guard let display = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil),
            eglInitialize(display, nil, nil) == EGL_TRUE
        else { throw Failure(description: "no EGL surfaceless display (error 0x\(Self.eglError))") }
        self.display = display
        let attributes: [EGLint] = [
            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE,
        ]
        var config: EGLConfig?
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, &config, 1, &count) == EGL_TRUE, count == 1,
            eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE
        else {
            eglTerminate(display)
            throw Failure(description: "no OpenGL ES 2 configuration (error 0x\(Self.eglError))")
        }
        let contextAttributes: [EGLint] = [EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE]
        guard let context = eglCreateContext(display, config, nil, contextAttributes),
            eglMakeCurrent(display, nil, nil, context) == EGL_TRUE
        else {
            eglTerminate(display)
            throw Failure(description: "no OpenGL ES 2 context (error 0x\(Self.eglError))")
        }
        self.context = context
        // Fully initialized from here: a throw runs deinit, which tears down what was made.
        defer { self.release() }
        try self.makeProgram()
        try self.makeFramebuffer()
    }

    /// Makes the context current on this thread. A context is current on
    /// one thread at a time, and async code moves between threads, so every
    /// use makes it current and ``release()``s it after.
    private func makeCurrent() -> Bool {
        eglMakeCurrent(self.display, nil, nil, self.context) == EGL_TRUE
    }

    /// Leaves the context current on no thread.
    private func release() {
        eglMakeCurrent(self.display, nil, nil, nil)
    }

    deinit {
        self.tearDown()
    }

    /// What renders: "llvmpipe (LLVM 15.0.6, 256 bits)" in software.
    var renderer: String {
        guard self.makeCurrent() else { return "?" }
        defer { self.release() }
        return glGetString(GLenum(GL_RENDERER)).map { String(cString: $0) } ?? "?"
    }

    /// Draws frame `index` (the disc crosses the picture every 150 frames)
    /// into `pixels`: RGBA, `width` × 4 bytes a row, top row first. Pixels
    /// of another size than the scene's are left as they are.
    func draw(frame index: Int, into pixels: inout [UInt8]) {
        guard pixels.count == self.width * self.height * 4, self.makeCurrent() else { return }
        defer { self.release() }
        glViewport(0, 0, GLsizei(self.width), GLsizei(self.height))
        glUseProgram(self.program)
        glUniform1f(self.timeUniform, Float(index % 150) / 150)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        pixels.withUnsafeMutableBytes { bytes in
            glReadPixels(
                0, 0, GLsizei(self.width), GLsizei(self.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                bytes.baseAddress)
        }
    }

    private func makeProgram() throws {
        let vertex = try Self.compile(Self.vertexShader, kind: GLenum(GL_VERTEX_SHADER))
        let fragment = try Self.compile(Self.fragmentShader, kind: GLenum(GL_FRAGMENT_SHADER))
        self.program = glCreateProgram()
        glAttachShader(self.program, vertex)
        glAttachShader(self.program, fragment)
        glBindAttribLocation(self.program, 0, "position")
        glLinkProgram(self.program)
        glDeleteShader(vertex)
        glDeleteShader(fragment)
        var linked: GLint = 0
        glGetProgramiv(self.program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else { throw Failure(description: "the shaders do not link") }
        self.timeUniform = glGetUniformLocation(self.program, "t")
        // A quad over the whole picture, two triangles as a strip.
        let quad: [GLfloat] = [-1, -1, 1, -1, -1, 1, 1, 1]
        glGenBuffers(1, &self.vertices)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), self.vertices)
        glBufferData(
            GLenum(GL_ARRAY_BUFFER), quad.count * MemoryLayout<GLfloat>.size, quad, GLenum(GL_STATIC_DRAW))
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
    }

    private func makeFramebuffer() throws {
        glGenTextures(1, &self.texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), self.texture)
        glTexImage2D(
            GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(self.width), GLsizei(self.height), 0, GLenum(GL_RGBA),
            GLenum(GL_UNSIGNED_BYTE), nil)
        glGenFramebuffers(1, &self.framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), self.framebuffer)
        glFramebufferTexture2D(
            GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), self.texture, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        guard status == GL_FRAMEBUFFER_COMPLETE else {
            throw Failure(description: "the framebuffer is incomplete (0x\(String(status, radix: 16)))")
        }
    }

    private static func compile(_ source: String, kind: GLenum) throws -> GLuint {
        let shader = glCreateShader(kind)
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var compiled: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &compiled)
        guard compiled == GL_TRUE else {
            var log = [GLchar](repeating: 0, count: 1_024)
            glGetShaderInfoLog(shader, GLsizei(log.count), nil, &log)
            glDeleteShader(shader)
            let text = log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            throw Failure(description: "a shader does not compile: \(String(decoding: text, as: UTF8.self))")
        }
        return shader
    }

    private func tearDown() {
        _ = self.makeCurrent()
        if self.framebuffer != 0 { glDeleteFramebuffers(1, &self.framebuffer) }
        if self.texture != 0 { glDeleteTextures(1, &self.texture) }
        if self.vertices != 0 { glDeleteBuffers(1, &self.vertices) }
        if self.program != 0 { glDeleteProgram(self.program) }
        eglMakeCurrent(self.display, nil, nil, nil)
        eglDestroyContext(self.display, self.context)
        eglTerminate(self.display)
    }

    private static var eglError: String { String(eglGetError(), radix: 16) }
}
