// Smile: placeholder until the module lands.
