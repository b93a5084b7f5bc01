using CodeAgent.RoslynHost.Handlers;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost;

public static class Program
{
    public static int Main(string[] args)
    {
        // Frames own stdout: anything else that writes to Console.Out (a library, a stray debug line)
        // is redirected to stderr so it can never corrupt the stream.
        var stdout = Console.OpenStandardOutput();
        Console.SetOut(Console.Error);
        var options = HostOptions.Parse(args);
        Log.Verbose = options.Verbose;
        var state = new HostState(options);
        var input = new StreamReader(Console.OpenStandardInput(), RpcServer.Utf8NoBom, false, 1 << 16);
        var server = new RpcServer(input, stdout, HandlerRegistry.Create(options), state);
        Log.Debug($"started pid {Environment.ProcessId}, queue {options.QueueSize}");
        return server.Run();
    }
}
