// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs another program from a test, waiting for that one child by its process ID.
///
/// Why not Foundation's `Process`: this test binary also runs exit tests (Swift Testing, in
/// `ActionStackTests`). On Linux, Swift Testing watches every child of the process with
/// `waitid(P_ALL, WNOWAIT)` and leaves children it does not know as zombies, and `Process` then
/// sometimes never learns that its child has exited: `waitUntilExit()` waited forever, with a
/// zombie `tmux` client and the monitor thread spinning, when the terminal test happened to run
/// beside the exit tests (a CI run stopped at its 90-minute limit). Here the child is reaped with
/// `waitpid` on its own ID, so its exit cannot be missed, and a deadline kills it rather than
/// letting a test hang.
///
/// Input comes from a file and output goes to a file (never pipes), so a program that leaves a
/// daemon behind (`tmux new-session` starts the tmux server) cannot keep a pipe of this process
/// open. Descriptors above 2 are closed in the child.
public struct ChildProcess: Sendable {
    /// What a run produced: standard output and standard error together (or standard error
    /// apart, in `errors`, when asked), and the exit status (128 + the signal number when a signal
    /// ended it).
    public struct Result: Sendable {
        /// Standard output, with standard error unless it was asked for apart.
        public var output: String
        /// The exit status, or 128 + the signal number.
        public var status: Int32
        /// Standard error, when asked for apart.
        public var errors = ""
    }

    /// Why a child could not be run to its end.
    public enum Failure: Error, CustomStringConvertible {
        case cannotStart(String, errno: Int32)
        case timedOut(String, after: Duration)
        case notBuilt(String)

        /// What went wrong, as a sentence.
        public var description: String {
            switch self {
            case .cannotStart(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            case .timedOut(let path, let limit): "\(path) did not finish within \(limit); it was killed"
            case .notBuilt(let name): "the executable \(name) is not in the build folder; build the tests first"
            }
        }
    }

    /// Runs `path` with `arguments`, `input` on its standard input, and waits for it to exit.
    ///
    /// - Parameters:
    ///   - path: The program to run.
    ///   - arguments: Its arguments, without the program's name.
    ///   - input: What it reads on standard input.
    ///   - captureOutput: When false, output goes to /dev/null (for programs that leave a
    ///     daemon holding it).
    ///   - separateErrors: Whether standard error goes to `Result.errors` instead of `output`.
    ///   - timeLimit: How long to wait before the child is killed.
    /// - Returns: The output and the exit status.
    /// - Throws: ``Failure`` when the program cannot start or does not finish in time.
    public static func run(
        _ path: String,
        _ arguments: [String] = [],
        input: String = "",
        captureOutput: Bool = true,
        separateErrors: Bool = false,
        timeLimit: Duration = .seconds(60)
    ) throws -> Result {
        let child = try start(
            path, arguments, input: input, captureOutput: captureOutput, separateErrors: separateErrors)
        return try child.wait(timeLimit: timeLimit)
    }

    /// A child that ``start(_:_:input:captureOutput:separateErrors:)`` started: it runs until it
    /// exits or a signal ends it (``send(_:)``), and ``wait(timeLimit:)`` reaps it and collects
    /// its output. Wait for every child once.
    public struct Running: Sendable {
        /// The child's process ID.
        public let pid: Int32
        let path: String
        let files: [URL]
        let outputURL: URL?
        let errorsURL: URL?

        /// Sends `signal` to the child (SIGKILL: a crash it cannot catch).
        public func send(_ signal: Int32) {
            _ = kill(pid, signal)
        }

        /// What the child has written to standard output so far (with standard error, unless it
        /// was asked for apart): empty when output is not captured.
        public func outputSoFar() -> String {
            outputURL.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" } ?? ""
        }

        /// Waits for the child to exit, killing it when `timeLimit` passes first, and returns its
        /// output and exit status (128 + the signal number when a signal ended it).
        ///
        /// - Throws: ``Failure/timedOut(_:after:)`` when the child had to be killed.
        public func wait(timeLimit: Duration = .seconds(60)) throws -> Result {
            defer { for file in files { try? FileManager.default.removeItem(at: file) } }
            let status = try ChildProcess.waitForExit(pid, path: path, timeLimit: timeLimit)
            let output = outputURL.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" } ?? ""
            let errors = errorsURL.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" } ?? ""
            return Result(output: output, status: status, errors: errors)
        }
    }

    /// Starts `path` with `arguments` and `input` on its standard input, and returns at once.
    ///
    /// - Parameters:
    ///   - path: The program to run.
    ///   - arguments: Its arguments, without the program's name.
    ///   - input: What it reads on standard input.
    ///   - captureOutput: When false, output goes to /dev/null.
    ///   - separateErrors: Whether standard error is collected apart from standard output.
    /// - Returns: The running child, to wait for.
    /// - Throws: ``Failure/cannotStart(_:errno:)`` when the program cannot start.
    public static func start(
        _ path: String,
        _ arguments: [String] = [],
        input: String = "",
        captureOutput: Bool = true,
        separateErrors: Bool = false
    ) throws -> Running {
        let directory = FileManager.default.temporaryDirectory
        let stem = "actionstack-child-\(getpid())-\(UUID().uuidString)"
        let inputURL = directory.appendingPathComponent(stem + ".in")
        let outputURL = directory.appendingPathComponent(stem + ".out")
        let errorsURL = directory.appendingPathComponent(stem + ".err")
        let files = [inputURL, outputURL, errorsURL]
        var started = false
        defer {
            if !started { for file in files { try? FileManager.default.removeItem(at: file) } }
        }
        try Data(input.utf8).write(to: inputURL)

        let inputFD = open(inputURL.path, O_RDONLY | O_CLOEXEC)
        let outputFD =
            captureOutput
            ? open(outputURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            : open("/dev/null", O_WRONLY | O_CLOEXEC)
        let errorsFD =
            separateErrors ? open(errorsURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) : outputFD
        defer {
            if inputFD >= 0 { close(inputFD) }
            if outputFD >= 0 { close(outputFD) }
            if separateErrors && errorsFD >= 0 { close(errorsFD) }
        }
        guard inputFD >= 0, outputFD >= 0, errorsFD >= 0 else { throw Failure.cannotStart(path, errno: errno) }

        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputFD, 0)
        posix_spawn_file_actions_adddup2(&actions, outputFD, 1)
        posix_spawn_file_actions_adddup2(&actions, errorsFD, 2)
        #if canImport(Glibc)
            closeInheritedDescriptors(&actions)
        #endif

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The child starts with no signal blocked and every handler at its default. posix_spawn
        // passes on the spawning thread's mask, and the test runner's threads block most signals:
        // a board started through tmux then never saw the SIGHUP of `kill-server`, and every test
        // run left three tmux servers and their boards running.
        #if canImport(Darwin)
            var attributes: posix_spawnattr_t?
        #else
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure.cannotStart(path, errno: spawned) }
        started = true
        return Running(
            pid: pid, path: path, files: files, outputURL: captureOutput ? outputURL : nil,
            errorsURL: separateErrors ? errorsURL : nil)
    }

    /// Where a built executable of this package is: in the build folder that holds the test
    /// binary, whatever its scratch path.
    ///
    /// - Parameter name: The executable's name (its target's name).
    /// - Returns: Its path.
    /// - Throws: ``Failure/notBuilt(_:)`` when it is not there.
    public static func builtExecutable(named name: String) throws -> String {
        var starts = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()]
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw Failure.notBuilt(name)
    }

    #if canImport(Glibc)
        /// Asks the child to close every descriptor above 2, where the C library can (glibc 2.34
        /// and later have `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module
        /// does not import, so it is looked up at run time).
        private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
    #endif

    /// Reaps `pid`, polling so that a deadline can end the wait.
    private static func waitForExit(_ pid: pid_t, path: String, timeLimit: Duration) throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeLimit)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { throw Failure.cannotStart(path, errno: errno) }
            if clock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw Failure.timedOut(path, after: timeLimit)
            }
            usleep(5_000)
        }
        // The wait status, decoded as the W* macros do (they are not imported into Swift).
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
