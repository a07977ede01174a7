// The one way the user side reads and writes a loaded program's maps, by
// name: whole hashes (batch reads), array elements, per-CPU elements and
// their sums, stack traces, and the resets between samples. Plain bpf(2)
// calls on the maps' fds, so the modes never touch BCC's table API.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loader/map_batch.h"

namespace kdelay {

class MapIo {
public:
    // fd_of gives a map's fd by name; it throws for a map the program lacks.
    explicit MapIo(std::function<int(const std::string&)> fd_of) : fd_of_(std::move(fd_of)) {}

    int fd(const std::string& map);

    // Every (key, value) of a hash or array, as the contract's types.
    template <class K, class V>
    std::vector<std::pair<K, V>> entries(const std::string& map)
    {
        return read_map_as<K, V>(fd(map));
    }

    // One element of an array. Throws Error(Exit::software) on failure.
    template <class V>
    V element(const std::string& map, uint32_t index)
    {
        V v{};
        lookup(map, index, &v, sizeof(V));
        return v;
    }
    template <class V>
    void set_element(const std::string& map, uint32_t index, const V& v)
    {
        update(map, index, &v, sizeof(V));
    }

    // One element of a per-CPU array: a value per possible CPU.
    template <class V>
    std::vector<V> per_cpu(const std::string& map, uint32_t index)
    {
        std::vector<V> out;
        per_cpu_lookup(map, index, sizeof(V), [&](const void* value) {
            V v;
            std::memcpy(&v, value, sizeof(V));
            out.push_back(v);
        });
        return out;
    }
    // The sum over CPUs of a per-CPU array's __u64 counter.
    uint64_t per_cpu_sum(const std::string& map, uint32_t index);

    // The addresses of stack id's trace in a stack-trace map, innermost
    // first; empty when the id is gone.
    std::vector<uint64_t> stack(const std::string& map, int id);

    // key's entry of a hash; none when it has none.
    template <class K, class V>
    std::optional<V> find(const std::string& map, const K& key)
    {
        V v{};
        if (!find_key(map, &key, &v, sizeof(V)))
            return std::nullopt;
        return v;
    }

    // Deletes every entry of a hash; zeroes every element of an array.
    void clear(const std::string& map) { clear_map(fd(map)); }
    // The keys of a map keyed by 32 bits (a stack table), without its values.
    std::vector<uint32_t> keys32(const std::string& map);
    // Deletes key's entry of a hash, if it has one.
    template <class K>
    void erase(const std::string& map, const K& key)
    {
        erase_key(map, &key);
    }
    // Writes key's entry of a hash. Throws Error(Exit::software) on failure.
    template <class K, class V>
    void set(const std::string& map, const K& key, const V& value)
    {
        update_key(map, &key, &value, sizeof(V));
    }
    void zero(const std::string& map) { zero_array(fd(map)); }

private:
    void lookup(const std::string& map, uint32_t index, void* value, size_t size);
    void update(const std::string& map, uint32_t index, const void* value, size_t size);
    void erase_key(const std::string& map, const void* key);
    bool find_key(const std::string& map, const void* key, void* value, size_t size);
    void update_key(const std::string& map, const void* key, const void* value, size_t size);
    void per_cpu_lookup(const std::string& map, uint32_t index, size_t size,
                        const std::function<void(const void*)>& each);
    // The map's value size, asked of the kernel once (-1: unknown).
    int64_t value_size(const std::string& map);
    std::function<int(const std::string&)> fd_of_;
    std::map<std::string, int> fds_;
    std::map<std::string, int64_t> value_sizes_;
};

}  // namespace kdelay
