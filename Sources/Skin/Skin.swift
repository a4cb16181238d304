// Skin: placeholder until the module lands.
