namespace CodeAgent.RoslynHost.Server;

/// <summary>Logs go to stderr only: stdout is reserved for frames.</summary>
public static class Log
{
    private static readonly object Gate = new();
    public static bool Verbose { get; set; }

    public static void Info(string message) => Write("info", message);
    public static void Debug(string message) { if (Verbose) Write("debug", message); }
    public static void Error(string message) => Write("error", message);

    private static void Write(string level, string message)
    {
        lock (Gate)
        {
            Console.Error.WriteLine($"[roslyn-host {level}] {message}");
        }
    }
}
