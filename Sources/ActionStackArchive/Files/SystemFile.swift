// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A failed system call: which one, and the system's reason.
struct SystemError: Error {
    /// The call and the system's reason, as in "open: Permission denied (errno 13)".
    var message: String
    /// The POSIX error number, when a system call failed.
    var code: Int32?
}

/// A file's time stamp, to the nanosecond where its file system keeps them.
struct FileTime: Equatable {
    var seconds: Int64
    var nanoseconds: Int64
}

/// Information about an open file.
struct FileInfo {
    /// The device and inode: together they name the file, whatever its path.
    var device: UInt64
    var inode: UInt64
    /// The size in bytes.
    var size: Int
    /// Whether it is a regular file (not a directory, a device or a pipe).
    var isRegularFile: Bool
    /// How many names it has: 0 once it was removed, or another file was renamed over its name.
    var links: UInt64
    /// When its contents last changed (`mtime`), and when its contents or attributes last changed
    /// (`ctime`, which no call can set back). A write changes both, to the resolution of the
    /// file system's clock: a later write by another program shows in them unless it comes within
    /// the same tick of that clock.
    var modified: FileTime
    var changed: FileTime

    /// Whether the two describe the same file (device and inode).
    func isSameFile(as other: FileInfo) -> Bool { device == other.device && inode == other.inode }
}

/// The system calls that the history file store and the journal make, in one place, with their
/// failures as ``SystemError``s. File descriptors are plain `Int32`s, closed by ``close(_:)``.
///
/// POSIX calls rather than `FileHandle`: `O_EXCL` creation with owner-only permissions (the
/// history can hold text the user deleted), `pwrite` and `ftruncate` at a known offset, the
/// device and inode of an open file, a directory's `fsync`, and `F_FULLFSYNC` on Apple platforms
/// (where `fsync` does not reach the disk's own cache) have no `FileHandle` spelling on every
/// platform. Every call retries on `EINTR`.
enum SystemFile {
    /// The permissions of the files the store and the journal create: the owner's only.
    static let ownerOnly = 0o600

    #if os(Windows)
        // The history files use POSIX calls (`rename` over an existing file, `fsync` of a
        // directory) that Windows lacks. The library builds there; these calls report that the
        // history files are not available on it yet.
        private static func unsupported(_ call: String) -> SystemError {
            SystemError(message: "\(call): history files are not supported on Windows", code: nil)
        }
        static var processID: Int32 { 0 }
        static func createExclusive(_ path: String) throws(SystemError) -> Int32 { throw unsupported("open") }
        static func openForReading(_ path: String) throws(SystemError) -> Int32? { throw unsupported("open") }
        static func openForUpdate(_ path: String) throws(SystemError) -> Int32 { throw unsupported("open") }
        static func info(_ descriptor: Int32) throws(SystemError) -> FileInfo { throw unsupported("fstat") }
        static func info(atPath path: String) throws(SystemError) -> FileInfo? { throw unsupported("stat") }
        static func lock(_ descriptor: Int32, exclusive: Bool) throws(SystemError) -> Bool {
            throw unsupported("flock")
        }
        static func read(_ descriptor: Int32, count: Int, at offset: Int) throws(SystemError) -> Data {
            throw unsupported("pread")
        }
        static func write(_ descriptor: Int32, _ data: Data, at offset: Int) throws(SystemError) {
            throw unsupported("pwrite")
        }
        static func truncate(_ descriptor: Int32, to size: Int) throws(SystemError) { throw unsupported("ftruncate") }
        static func synchronize(_ descriptor: Int32) throws(SystemError) { throw unsupported("fsync") }
        static func close(_ descriptor: Int32) throws(SystemError) { throw unsupported("close") }
        static func rename(_ source: String, to destination: String) throws(SystemError) {
            throw unsupported("rename")
        }
        static func unlink(_ path: String) throws(SystemError) -> Bool { throw unsupported("unlink") }
        static func synchronizeDirectory(_ path: String) {}
        static func isProcessAlive(_ pid: Int32) -> Bool { true }
    #else
        /// The error of the call that just failed.
        private static func failure(_ call: String, _ code: Int32 = errno) -> SystemError {
            SystemError(message: "\(call): \(String(cString: strerror(code))) (errno \(code))", code: code)
        }

        /// This process's ID, which names its temporary files.
        static var processID: Int32 { getpid() }

        /// Creates `path`, which must not exist, for writing, readable by the owner only.
        static func createExclusive(_ path: String) throws(SystemError) -> Int32 {
            while true {
                let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(ownerOnly))
                if descriptor >= 0 { return descriptor }
                if errno != EINTR { throw failure("open") }
            }
        }

        /// Opens `path` for reading; nil when there is no file there. Without blocking: a named pipe
        /// put at the path would otherwise wait for a writer forever (the callers then refuse what
        /// is not a regular file); for a regular file the flag changes nothing.
        static func openForReading(_ path: String) throws(SystemError) -> Int32? {
            while true {
                let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                if descriptor >= 0 { return descriptor }
                if errno == ENOENT { return nil }
                if errno != EINTR { throw failure("open") }
            }
        }

        /// Opens `path` for reading and writing, creating it (owner-only) when there is none. Without
        /// blocking, as ``openForReading(_:)``.
        static func openForUpdate(_ path: String) throws(SystemError) -> Int32 {
            while true {
                let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, mode_t(ownerOnly))
                if descriptor >= 0 { return descriptor }
                if errno != EINTR { throw failure("open") }
            }
        }

        /// The identity, size, kind and time stamps of an open file.
        static func info(_ descriptor: Int32) throws(SystemError) -> FileInfo {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw failure("fstat") }
            return FileInfo(status)
        }

        /// The identity, size, kind and time stamps of the file at `path` (a symbolic link is
        /// followed, as `open` follows it); nil when there is no file there.
        static func info(atPath path: String) throws(SystemError) -> FileInfo? {
            var status = stat()
            while stat(path, &status) != 0 {
                if errno == ENOENT { return nil }
                if errno != EINTR { throw failure("stat") }
            }
            return FileInfo(status)
        }

        /// Takes the advisory lock of an open file (`flock`), shared or exclusive, waiting for it;
        /// the lock lasts until the descriptor is closed. False, with no lock taken, when the file
        /// system has no such locks (`ENOLCK`, `EOPNOTSUPP`, `EINVAL`: some network file systems).
        ///
        /// The lock belongs to the open file, not to the process: two descriptors that opened the
        /// same file separately exclude each other, in one process as in two.
        static func lock(_ descriptor: Int32, exclusive: Bool) throws(SystemError) -> Bool {
            while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOLCK || code == EOPNOTSUPP || code == ENOTSUP || code == EINVAL { return false }
                throw failure("flock", code)
            }
            return true
        }

        /// Reads up to `count` bytes at `offset`: fewer only at the end of the file.
        static func read(_ descriptor: Int32, count: Int, at offset: Int) throws(SystemError) -> Data {
            var data = Data(count: count)
            var done = 0
            var failed: Int32?
            data.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                while done < count {
                    let result = pread(descriptor, base + done, count - done, off_t(offset + done))
                    if result > 0 {
                        done += result
                    } else if result == 0 {
                        break
                    } else if errno != EINTR {
                        failed = errno
                        break
                    }
                }
            }
            if let failed { throw failure("pread", failed) }
            if done < count { data.count = done }
            return data
        }

        /// Writes all of `data` at `offset`.
        static func write(_ descriptor: Int32, _ data: Data, at offset: Int) throws(SystemError) {
            var done = 0
            var failed: Int32?
            data.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                while done < buffer.count {
                    let result = pwrite(descriptor, base + done, buffer.count - done, off_t(offset + done))
                    if result > 0 {
                        done += result
                    } else if result == 0 {
                        failed = EIO
                        break
                    } else if errno != EINTR {
                        failed = errno
                        break
                    }
                }
            }
            if let failed { throw failure("pwrite", failed) }
        }

        /// Cuts the file to `size` bytes.
        static func truncate(_ descriptor: Int32, to size: Int) throws(SystemError) {
            while ftruncate(descriptor, off_t(size)) != 0 {
                if errno != EINTR { throw failure("ftruncate") }
            }
        }

        /// Writes the file's data through to the disk. On Apple platforms `fsync` leaves it in the
        /// disk's cache, so `F_FULLFSYNC` is asked first, and `fsync` only where the file system
        /// does not support it.
        static func synchronize(_ descriptor: Int32) throws(SystemError) {
            #if canImport(Darwin)
                if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
            #endif
            while fsync(descriptor) != 0 {
                if errno != EINTR { throw failure("fsync") }
            }
        }

        /// Closes a descriptor. A failure can be a write that did not reach the file (`EIO` on
        /// a network file system), so it is reported; the descriptor is closed either way.
        static func close(_ descriptor: Int32) throws(SystemError) {
            if Glue.close(descriptor) != 0 && errno != EINTR { throw failure("close") }
        }

        /// Renames `source` to `destination`, replacing it: atomic, so that the name refers to the
        /// old file or the new one, never to neither.
        static func rename(_ source: String, to destination: String) throws(SystemError) {
            while Glue.rename(source, destination) != 0 {
                if errno != EINTR { throw failure("rename") }
            }
        }

        /// Removes the file at `path`; false when there was none.
        static func unlink(_ path: String) throws(SystemError) -> Bool {
            while Glue.unlink(path) != 0 {
                if errno == ENOENT { return false }
                if errno != EINTR { throw failure("unlink") }
            }
            return true
        }

        /// Writes a directory's entries through to the disk, so that a rename or a new file in it
        /// survives a power loss. Best effort: some file systems cannot open or sync a directory,
        /// and by then the file itself is complete, so a failure here is not reported.
        static func synchronizeDirectory(_ path: String) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            _ = fsync(descriptor)
            _ = Glue.close(descriptor)
        }

        /// Whether a process with this ID exists (`ESRCH` says it does not; a process of another
        /// user answers `EPERM`, and counts as alive).
        static func isProcessAlive(_ pid: Int32) -> Bool {
            kill(pid_t(pid), 0) == 0 || errno != ESRCH
        }
    #endif
}

#if !os(Windows)
    extension FileInfo {
        /// The information in a `stat` structure.
        fileprivate init(_ status: stat) {
            #if canImport(Darwin)
                let modified = status.st_mtimespec
                let changed = status.st_ctimespec
            #else
                let modified = status.st_mtim
                let changed = status.st_ctim
            #endif
            self.init(
                device: UInt64(truncatingIfNeeded: status.st_dev),
                inode: UInt64(truncatingIfNeeded: status.st_ino),
                size: Int(status.st_size),
                isRegularFile: (status.st_mode & S_IFMT) == S_IFREG,
                links: UInt64(truncatingIfNeeded: status.st_nlink),
                modified: FileTime(seconds: Int64(modified.tv_sec), nanoseconds: Int64(modified.tv_nsec)),
                changed: FileTime(seconds: Int64(changed.tv_sec), nanoseconds: Int64(changed.tv_nsec))
            )
        }
    }

    /// The C library's functions whose names ``SystemFile`` reuses for its own.
    private enum Glue {
        static func close(_ descriptor: Int32) -> Int32 {
            #if canImport(Darwin)
                Darwin.close(descriptor)
            #elseif canImport(Glibc)
                Glibc.close(descriptor)
            #elseif canImport(Musl)
                Musl.close(descriptor)
            #elseif canImport(Android)
                Android.close(descriptor)
            #endif
        }

        static func rename(_ source: String, _ destination: String) -> Int32 {
            #if canImport(Darwin)
                Darwin.rename(source, destination)
            #elseif canImport(Glibc)
                Glibc.rename(source, destination)
            #elseif canImport(Musl)
                Musl.rename(source, destination)
            #elseif canImport(Android)
                Android.rename(source, destination)
            #endif
        }

        static func unlink(_ path: String) -> Int32 {
            #if canImport(Darwin)
                Darwin.unlink(path)
            #elseif canImport(Glibc)
                Glibc.unlink(path)
            #elseif canImport(Musl)
                Musl.unlink(path)
            #elseif canImport(Android)
                Android.unlink(path)
            #endif
        }
    }
#endif
