using System.Diagnostics;
using CodeAgent.RoslynHost.Analysis;

namespace CodeAgent.RoslynHost.Server;

/// <summary>Process-wide state shared by the handlers.</summary>
public sealed class HostState(HostOptions options)
{
    public HostOptions Options { get; } = options;
    public Stopwatch Uptime { get; } = Stopwatch.StartNew();
    public HostWorkspace Workspace { get; } = new();
    public Func<int> QueuedCount { get; set; } = () => 0;
    public Func<long, bool> CancelRequest { get; set; } = _ => false;
    public Action RequestShutdown { get; set; } = () => { };
}

public sealed record HostOptions(int QueueSize, bool EnableTestMethods, bool Verbose)
{
    public static HostOptions Parse(string[] args)
    {
        var queue = Protocol.ProtocolInfo.DefaultQueueSize;
        var test = false;
        var verbose = false;
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--queue-size" when i + 1 < args.Length && int.TryParse(args[i + 1], out var q) && q > 0:
                    queue = q;
                    i++;
                    break;
                case "--enable-test-methods":
                    test = true;
                    break;
                case "--verbose":
                    verbose = true;
                    break;
                default:
                    Log.Info($"ignoring unknown argument {args[i]}");
                    break;
            }
        }
        return new HostOptions(queue, test, verbose);
    }
}
