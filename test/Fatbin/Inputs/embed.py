# Writes a C++ file that holds the bytes of a file as an 8-byte aligned
# constant array (a fatbin embedded as data, as some libraries ship them),
# preceded by a few bytes that contain the fatbin magic but no container.
import sys

data = open(sys.argv[1], "rb").read()
decoy = bytes([0x50, 0xED, 0x55, 0xBA, 7, 0, 0, 0])
print("alignas(8) extern const unsigned char Decoy[] = {%s};" %
      ", ".join(str(b) for b in decoy))
print("alignas(8) extern const unsigned char Fatbin[] = {%s};" %
      ", ".join(str(b) for b in data))
