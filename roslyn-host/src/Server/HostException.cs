namespace CodeAgent.RoslynHost.Server;

/// <summary>An error that becomes a wire error response with a stable code.</summary>
public sealed class HostException(string code, string message, object? data = null, Exception? inner = null)
    : Exception(message, inner)
{
    public string Code { get; } = code;
    public object? Data2 { get; } = data;
}
