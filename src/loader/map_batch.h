// Reads and clears whole BPF hash maps in O(entries), with the kernel's
// batch operations where the map type has them.
//
// BCC's clear_table_non_atomic() deletes the first key again and again, and
// finding the first key of a hash map scans the buckets from the start, so a
// clear costs O(entries x buckets): minutes for 3000 threads' histograms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace kdelay {

// Keys and values of a map, packed as the kernel lays them out.
struct MapEntries {
    size_t key_size = 0;
    size_t value_size = 0;  // per-CPU maps: one 8-byte-aligned value per possible CPU
    size_t count = 0;
    std::vector<unsigned char> keys;
    std::vector<unsigned char> values;
};

// Every entry of the map behind fd. Throws Error(Exit::software) on failure.
MapEntries read_map(int fd);
// Deletes every entry of the map behind fd; returns how many.
size_t clear_map(int fd);
// Sets every element of the array (or per-CPU array) behind fd to zeros:
// array elements cannot be deleted.
void zero_array(int fd);

// The per-key paths taken where the map type has no batch operations
// (stack traces, kernels before 5.6); exposed for tests.
MapEntries read_map_by_key(int fd);
size_t clear_map_by_key(int fd);

// read_map() as (key, value) pairs of the ABI types.
template <class K, class V>
std::vector<std::pair<K, V>> read_map_as(int fd)
{
    const MapEntries e = read_map(fd);
    if (e.key_size != sizeof(K) || e.value_size != sizeof(V))
        return {};  // not the layout the caller expects: nothing to report
    std::vector<std::pair<K, V>> out(e.count);
    for (size_t i = 0; i < e.count; ++i) {
        std::memcpy(&out[i].first, &e.keys[i * sizeof(K)], sizeof(K));
        std::memcpy(&out[i].second, &e.values[i * sizeof(V)], sizeof(V));
    }
    return out;
}

}  // namespace kdelay
