using System.Text.Json;
using System.Text.Json.Serialization;

namespace CodeAgent.RoslynHost.Server;

public static class Json
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        WriteIndented = false,
    };

    /// <summary>Deserialises request params; missing or malformed params become invalid_request.</summary>
    public static T Params<T>(JsonElement? element) where T : class
    {
        if (element is null || element.Value.ValueKind is JsonValueKind.Null or JsonValueKind.Undefined)
            throw new HostException(Protocol.ErrorCodes.InvalidRequest, $"missing params for {typeof(T).Name}");
        try
        {
            return element.Value.Deserialize<T>(Options)
                ?? throw new HostException(Protocol.ErrorCodes.InvalidRequest, $"null params for {typeof(T).Name}");
        }
        catch (JsonException e)
        {
            throw new HostException(Protocol.ErrorCodes.InvalidRequest, $"bad params for {typeof(T).Name}: {e.Message}");
        }
    }
}
