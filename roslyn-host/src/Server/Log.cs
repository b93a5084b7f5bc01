namespace CodeAgent.RoslynHost.Server;

/// <summary>
/// Logs go to stderr only: stdout is reserved for frames. Debug lines are written with `--verbose`, or appended to the
/// file CA_ROSLYN_HOST_LOG names (the supervisor keeps only a short tail of stderr, so a full index's timings are read
/// from that file); each carries the milliseconds since the host started, so stages can be timed from the log alone.
/// </summary>
public static class Log
{
    /// <summary>A file to append debug lines to (timings of loads, the Razor generator, analyses).</summary>
    public const string FileVariable = "CA_ROSLYN_HOST_LOG";

    private static readonly object Gate = new();
    private static readonly System.Diagnostics.Stopwatch Clock = System.Diagnostics.Stopwatch.StartNew();
    private static readonly string? LogFile = Environment.GetEnvironmentVariable(FileVariable) is { Length: > 0 } f ? f : null;

    public static bool Verbose { get; set; }

    /// <summary>Whether debug lines go anywhere (skip building costly ones otherwise).</summary>
    public static bool DebugEnabled => Verbose || LogFile is not null;

    public static void Info(string message) => Write("info", message);
    public static void Debug(string message)
    {
        if (!DebugEnabled) return;
        if (Verbose) Write("debug", message);
        if (LogFile is not null) Append(message);
    }
    public static void Error(string message) => Write("error", message);

    private static void Write(string level, string message)
    {
        lock (Gate)
        {
            Console.Error.WriteLine($"[roslyn-host {level}] {message}");
        }
    }

    private static void Append(string message)
    {
        lock (Gate)
        {
            try
            {
                File.AppendAllText(LogFile!, $"{Clock.ElapsedMilliseconds,8} [{Environment.ProcessId}] {message}\n");
            }
            catch (IOException e)
            {
                Console.Error.WriteLine($"[roslyn-host error] {FileVariable}: {e.Message}");
            }
        }
    }
}
