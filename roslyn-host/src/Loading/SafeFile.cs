using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>Why a file was not read (the wire text of a file_refused warning says it in words).</summary>
public enum SafeFileRefusal { Missing, Symlink, NotRegular, TooLarge, OutsideRoot, Unreadable }

/// <summary>A file's bytes, or why they were not read.</summary>
public sealed record SafeFileResult(byte[]? Bytes, SafeFileRefusal? Refusal, string? Reason)
{
    public bool Ok => Bytes is not null;
}

/// <summary>
/// The host's one way to read a repository file (the TypeScript side's safeRead.ts, decision 017): opened without
/// following a link at the last component and without blocking on a FIFO, then checked on the open handle — a
/// regular file, at most the cap, inside the repository root after every link of its directories is resolved — and
/// read to at most cap + 1 bytes. On Linux (x64, arm64) the checks use open(2) with O_NOFOLLOW | O_NONBLOCK, statx(2)
/// on the descriptor and /proc/self/fd; elsewhere a weaker portable path checks the link and the size before opening
/// (a FIFO there would still block: the host is only shipped for Linux CI and developer machines today).
/// </summary>
public static class SafeFile
{
    /// <summary>Largest project or props file read (the TypeScript side's CONFIG_READ_MAX_BYTES).</summary>
    public const long ProjectFileMaxBytes = 1L << 20;

    /// <summary>Largest obj/project.assets.json read (a big solution's is tens of MB).</summary>
    public const long AssetsFileMaxBytes = 256L << 20;

    /// <summary>Largest source file read when the request does not say (indexing.max_file_bytes' default).</summary>
    public const long DefaultSourceMaxBytes = 1L << 20;

    /// <summary>Largest assembly read from inside the repository.</summary>
    public const long AssemblyMaxBytes = 256L << 20;

    public static SafeFileResult Read(string path, string? root, long maxBytes)
    {
        try
        {
            return LinuxNative.Supported ? ReadLinux(path, root, maxBytes) : ReadPortable(path, root, maxBytes);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return Refused(SafeFileRefusal.Unreadable, $"unreadable ({e.Message})");
        }
    }

    /// <summary>True when <paramref name="path"/> lies inside <paramref name="root"/> (both absolute, links resolved by the caller).</summary>
    public static bool IsInside(string root, string path)
    {
        var rel = Path.GetRelativePath(root, path);
        // "..x.cs" is a file of the root; only ".." itself and "../…" leave it.
        return rel != ".." && !rel.StartsWith(".." + Path.DirectorySeparatorChar, StringComparison.Ordinal) && !Path.IsPathRooted(rel);
    }

    private static SafeFileResult Refused(SafeFileRefusal refusal, string reason) => new(null, refusal, reason);

    private static SafeFileResult ReadLinux(string path, string? root, long maxBytes)
    {
        var fd = LinuxNative.open(path, LinuxNative.OpenFlags);
        if (fd < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            return errno switch
            {
                LinuxNative.ENOENT or LinuxNative.ENOTDIR => Refused(SafeFileRefusal.Missing, "no such file"),
                LinuxNative.ELOOP => Refused(SafeFileRefusal.Symlink, "symbolic link (not followed)"),
                LinuxNative.ENXIO or LinuxNative.ENODEV => Refused(SafeFileRefusal.NotRegular, "not a regular file"),
                _ => Refused(SafeFileRefusal.Unreadable, $"unreadable (errno {errno})"),
            };
        }
        using var handle = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
        var stat = new byte[LinuxNative.StatxSize];
        if (LinuxNative.statx(fd, "", LinuxNative.AT_EMPTY_PATH, LinuxNative.STATX_TYPE | LinuxNative.STATX_SIZE, stat) != 0)
            return Refused(SafeFileRefusal.Unreadable, $"unreadable (statx errno {Marshal.GetLastPInvokeError()})");
        var mode = BitConverter.ToUInt16(stat, LinuxNative.StatxModeOffset);
        var size = BitConverter.ToInt64(stat, LinuxNative.StatxSizeOffset);
        if ((mode & LinuxNative.S_IFMT) != LinuxNative.S_IFREG) return Refused(SafeFileRefusal.NotRegular, $"not a regular file ({KindOf(mode)})");
        if (size > maxBytes) return Refused(SafeFileRefusal.TooLarge, $"file is {size} bytes, over the {maxBytes}-byte cap");
        if (root is not null)
        {
            var real = new FileInfo($"/proc/self/fd/{fd}").LinkTarget;
            if (real is null || real.EndsWith(" (deleted)", StringComparison.Ordinal)) return Refused(SafeFileRefusal.Unreadable, "cannot tell where the open file lives");
            if (!IsInside(RealRoot(root), real)) return Refused(SafeFileRefusal.OutsideRoot, "resolves outside the repository");
        }
        return ReadCapped(handle, size, maxBytes);
    }

    private static SafeFileResult ReadPortable(string path, string? root, long maxBytes)
    {
        var info = new FileInfo(path);
        if (!info.Exists) return Refused(SafeFileRefusal.Missing, "no such file");
        if (info.LinkTarget is not null) return Refused(SafeFileRefusal.Symlink, "symbolic link (not followed)");
        if (info.Length > maxBytes) return Refused(SafeFileRefusal.TooLarge, $"file is {info.Length} bytes, over the {maxBytes}-byte cap");
        if (root is not null && !IsInside(RealRoot(root), Path.GetFullPath(path))) return Refused(SafeFileRefusal.OutsideRoot, "resolves outside the repository");
        using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        var size = RandomAccess.GetLength(handle);
        if (size > maxBytes) return Refused(SafeFileRefusal.TooLarge, $"file is {size} bytes, over the {maxBytes}-byte cap");
        return ReadCapped(handle, size, maxBytes);
    }

    /// <summary>Reads from the start to the end, at most <paramref name="maxBytes"/> + 1 bytes (a file may grow while read).</summary>
    private static SafeFileResult ReadCapped(SafeFileHandle handle, long size, long maxBytes)
    {
        var buffer = new byte[Math.Min(Math.Min(size, maxBytes), 1 << 20) + 1];
        long length = 0;
        while (true)
        {
            if (length == buffer.Length)
            {
                if (length > maxBytes) return Refused(SafeFileRefusal.TooLarge, $"file grew past the {maxBytes}-byte cap while read");
                Array.Resize(ref buffer, (int)Math.Min((long)buffer.Length * 2, maxBytes + 1));
            }
            var n = RandomAccess.Read(handle, buffer.AsSpan((int)length), length);
            if (n == 0) break;
            length += n;
        }
        if (length > maxBytes) return Refused(SafeFileRefusal.TooLarge, $"file grew past the {maxBytes}-byte cap while read");
        Array.Resize(ref buffer, (int)length);
        return new SafeFileResult(buffer, null, null);
    }

    private static readonly Dictionary<string, string> RealRoots = new(StringComparer.Ordinal);

    /// <summary>The root with its links resolved (on Linux the kernel's name of an open descriptor of it).</summary>
    private static string RealRoot(string root)
    {
        var full = Path.GetFullPath(root);
        lock (RealRoots)
        {
            if (RealRoots.TryGetValue(full, out var known)) return known;
        }
        var real = full;
        if (LinuxNative.Supported)
        {
            var fd = LinuxNative.open(full, LinuxNative.O_RDONLY | LinuxNative.O_CLOEXEC);
            if (fd >= 0)
            {
                using var handle = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
                real = new FileInfo($"/proc/self/fd/{fd}").LinkTarget ?? full;
            }
        }
        else if (new DirectoryInfo(full).ResolveLinkTarget(returnFinalTarget: true) is { } target)
        {
            real = target.FullName;
        }
        lock (RealRoots)
        {
            RealRoots[full] = real;
        }
        return real;
    }

    private static string KindOf(ushort mode) => (mode & LinuxNative.S_IFMT) switch
    {
        LinuxNative.S_IFDIR => "directory",
        LinuxNative.S_IFIFO => "FIFO",
        LinuxNative.S_IFCHR => "character device",
        LinuxNative.S_IFBLK => "block device",
        LinuxNative.S_IFSOCK => "socket",
        LinuxNative.S_IFLNK => "symbolic link",
        _ => "special file",
    };

    /// <summary>libc on Linux: the open flags differ by architecture (O_NOFOLLOW is 0x20000 on x86, 0x8000 on arm).</summary>
    private static class LinuxNative
    {
        public const int O_RDONLY = 0;
        public const int O_NONBLOCK = 0x800;
        public const int O_CLOEXEC = 0x80000;
        public const int AT_EMPTY_PATH = 0x1000;
        public const uint STATX_TYPE = 0x1;
        public const uint STATX_SIZE = 0x200;
        /// <summary>struct statx is 256 bytes on every architecture; stx_mode is a u16 at 28, stx_size a u64 at 40.</summary>
        public const int StatxSize = 256;
        public const int StatxModeOffset = 28;
        public const int StatxSizeOffset = 40;
        public const int S_IFMT = 0xF000, S_IFIFO = 0x1000, S_IFCHR = 0x2000, S_IFDIR = 0x4000, S_IFBLK = 0x6000, S_IFREG = 0x8000, S_IFLNK = 0xA000, S_IFSOCK = 0xC000;
        public const int ENOENT = 2, ENXIO = 6, ENODEV = 19, ENOTDIR = 20, ELOOP = 40;

        private static readonly int NoFollow = RuntimeInformation.ProcessArchitecture switch
        {
            Architecture.X64 or Architecture.X86 => 0x20000,
            Architecture.Arm64 or Architecture.Arm => 0x8000,
            _ => 0,
        };

        public static readonly bool Supported = OperatingSystem.IsLinux() && NoFollow != 0 && HasStatx();

        public static int OpenFlags => O_RDONLY | O_NONBLOCK | O_CLOEXEC | NoFollow;

        [DllImport("libc", SetLastError = true)]
        public static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

        [DllImport("libc", SetLastError = true)]
        public static extern int statx(int dirfd, [MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags, uint mask, [Out] byte[] buffer);

        /// <summary>glibc 2.28+ and musl 1.2.5+ export statx; without it the portable path is used.</summary>
        private static bool HasStatx()
        {
            if (!OperatingSystem.IsLinux()) return false;
            try
            {
                var buffer = new byte[StatxSize];
                return statx(-100 /* AT_FDCWD */, "/", 0, STATX_TYPE, buffer) == 0;
            }
            catch (Exception e) when (e is EntryPointNotFoundException or DllNotFoundException)
            {
                return false;
            }
        }
    }
}
